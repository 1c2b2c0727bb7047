/**
 * The HNSW graphs of a store's big collections (`hnsw-graph.ts`), kept beside the SQLite
 * tables and never inside a write's wait:
 *
 * - A collection gets a graph once it holds `minPoints` points. The graph is built in the
 *   background from the stored vectors, in slices of at most `sliceMs` on the event loop
 *   (`pump`); until it is complete, searches of that collection stay exact (vec0).
 * - Writes to a collection with a graph are queued on it after their transaction commits
 *   (`afterCommit`) and applied in slices; searches read the queue exactly meanwhile.
 * - With a file-backed store the graph is saved in `<db file>-graphs/` (hnswlib's format:
 *   vectors, links and rowid labels; no text, no payload) on a libuv thread once the collection
 *   has been quiet for `saveDelayMs`, and on close. Every write to a collection that has a
 *   graph is logged (`vec_changes_x`, in the write's transaction); the registry row
 *   (`vec_graphs_x`) records the log position a snapshot covers. On open, each snapshot is read
 *   in the background and the log after its position replayed (searches exact meanwhile);
 *   a missing or unreadable snapshot is rebuilt. A crash at any point leaves either the old
 *   snapshot with its position or the new one with the old position, and replaying a change
 *   twice is harmless: it re-reads the point's current state from SQLite.
 * - A graph whose deleted slots reach `rebuildDeletedShare` of it is rebuilt; one whose
 *   collection empties is dropped with its file.
 * - Deleted points' vectors are overwritten (`HnswGraph.scrubSome`) in slices once a save is
 *   due, or the graph rebuilt when more wait for that than are live; an emptied one is dropped.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { HnswGraph } from './hnsw-graph';
import type { HnswParameters } from './hnsw-graph';
import { graphTablesSql, tablesOf } from './sqlite-vector-schema';
import { countPoints, graphKey as key, pointsAfter, storedVectorOf } from './graph-state';
import type { CollectionGraph, GraphSql, GraphStatus } from './graph-state';
import { GraphSnapshots } from './graph-snapshots';

export interface GraphOptions extends Partial<HnswParameters> {
  /** Points a collection needs before it gets a graph (default GRAPH_DEFAULTS.minPoints). */
  readonly minPoints?: number;
  /** Longest run of graph work on the event loop before yielding, ms. */
  readonly sliceMs?: number;
  /** Quiet time before a changed graph is saved, ms. */
  readonly saveDelayMs?: number;
  readonly rebuildDeletedShare?: number;
}

export const GRAPH_DEFAULTS: Required<GraphOptions> = { minPoints: 5_000, m: 16, efConstruction: 100, efSearch: 64, sliceMs: 8, saveDelayMs: 5_000, rebuildDeletedShare: 0.3 };

/** A write's effect on one point, collected inside the transaction. */
export interface PointChange {
  readonly index: string;
  readonly collection: string;
  readonly rowid: number;
  /** The stored vector after the write, or null when the point was deleted. */
  readonly vector: Float32Array | null;
  /** Log position (set when logged). */
  seq?: number;
}

const PAGE = 256;

export class SqliteGraphs {
  readonly options: Required<GraphOptions>;
  private readonly states = new Map<string, CollectionGraph>();
  private readonly tablesReady = new Set<string>();
  private scheduled: NodeJS.Immediate | NodeJS.Timeout | null = null;
  /** Whether `scheduled` is a save's timer rather than an immediate. */
  private timer = false;
  private saving: Promise<void> | null = null;
  private readonly snapshots: GraphSnapshots;
  private waiters: Array<() => void> = [];
  private closed = false;

  constructor(
    private readonly sql: GraphSql,
    /** Where snapshots go; null for an in-memory store (graphs are rebuilt on open). */
    private readonly dir: string | null,
    options: GraphOptions | false | undefined,
  ) {
    this.options = options === false ? { ...GRAPH_DEFAULTS, minPoints: Number.POSITIVE_INFINITY } : { ...GRAPH_DEFAULTS, ...options };
    this.snapshots = new GraphSnapshots(sql, dir, (state) => this.states.get(key(state.index, state.collection)) === state);
  }

  /** On open: every registered graph is loaded (or rebuilt) in the background. */
  start(indexes: readonly string[]): void {
    for (const name of indexes) {
      if (!this.hasTables(name)) continue;
      const { graphs } = tablesOf(name);
      const rows = this.sql.prepare(`SELECT collection_id, covered_seq, file FROM ${graphs}`).all() as Array<{ collection_id: string; covered_seq: number; file: string | null }>;
      for (const row of rows) {
        const state = this.newState(name, row.collection_id, 'building');
        const file = row.file && this.dir ? join(this.dir, row.file) : null;
        if (!Number.isFinite(this.options.minPoints)) {
          this.drop(state);
        } else if (file && existsSync(file)) {
          state.status = 'loading';
          state.cursor = row.covered_seq;
          this.load(state, file);
        } else {
          this.build(state, countPoints(this.sql, name, row.collection_id, Number.POSITIVE_INFINITY));
        }
      }
    }
    this.schedule();
  }

  /** The collection's graph when complete, else null (search exactly). */
  ready(index: string, collection: string): HnswGraph | null {
    const state = this.states.get(key(index, collection));
    return state?.status === 'ready' ? state.graph : null;
  }

  status(index: string, collection: string): GraphStatus | 'none' {
    return this.states.get(key(index, collection))?.status ?? 'none';
  }

  /** Inside the write's transaction: logs the changes of collections that have a graph. */
  log(changes: readonly PointChange[]): void {
    for (const change of changes) {
      if (!this.states.has(key(change.index, change.collection))) continue;
      const inserted = this.sql.run(`INSERT INTO ${tablesOf(change.index).changes} (collection_id, rowid) VALUES (?, ?)`, [change.collection, change.rowid]);
      change.seq = Number(inserted.lastInsertRowid);
    }
  }

  /** After the write committed: queues the changes on their graphs, starts graphs for collections that grew big enough. */
  afterCommit(changes: readonly PointChange[], touched: ReadonlyMap<string, ReadonlySet<string>>): void {
    const now = performance.now();
    for (const change of changes) {
      const state = this.states.get(key(change.index, change.collection));
      if (!state) continue;
      state.lastSeq = Math.max(state.lastSeq, change.seq ?? 0);
      state.changesSinceSave++;
      state.lastChangeAt = now;
      // Loading: the log replay will read it. Building: read from SQLite when applied (nothing searches the queue yet).
      if (state.status === 'ready') state.graph?.stale(change.rowid, { vector: change.vector, seq: change.seq ?? 0 });
      else if (state.graph && state.status !== 'loading') state.graph.stale(change.rowid, { vector: undefined, seq: change.seq ?? 0 });
    }
    for (const [index, collections] of touched) {
      for (const collection of collections) this.maintain(index, collection);
    }
    this.schedule();
  }

  /** Resolves once no graph has work left (built, loaded, queue applied); saves may still be due. */
  settled(): Promise<void> {
    if (this.idle()) return Promise.resolve();
    this.schedule();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Settles, then saves every changed graph now. */
  async flush(): Promise<void> {
    await this.settled();
    await this.saveChanged();
  }

  /** Forgets the graphs of these indexes (reset, drop) and deletes their files. */
  forget(indexes: readonly string[]): void {
    for (const state of [...this.states.values()]) {
      if (indexes.includes(state.index)) this.drop(state, false);
    }
    for (const name of indexes) this.tablesReady.delete(name);
  }

  /**
   * Stops the background work without waiting for it: complete graphs are saved (their queue
   * is in the change log), graphs still being built or loaded are not (the next open starts
   * them again).
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.scheduled && this.timer) clearTimeout(this.scheduled as NodeJS.Timeout);
    else if (this.scheduled) clearImmediate(this.scheduled as NodeJS.Immediate);
    this.scheduled = null;
    for (const resolve of this.waiters.splice(0)) resolve();
    await this.saveChanged().catch(() => undefined);
    this.states.clear();
  }

  private async saveChanged(): Promise<void> {
    await this.saving;
    for (const state of [...this.states.values()]) {
      if (state.status !== 'ready' || state.changesSinceSave === 0) continue;
      await (this.closed ? this.snapshots.saveOnClose(state) : this.snapshots.save(state));
    }
  }

  // ---- the background work ----

  private schedule(delay = 0): void {
    if (this.closed) return;
    if (this.scheduled) {
      // A save's timer gives way to work now; work already due stays as it is.
      if (delay > 0 || !this.timer) return;
      clearTimeout(this.scheduled as NodeJS.Timeout);
    }
    const run = (): void => {
      this.scheduled = null;
      this.timer = false;
      this.pump();
    };
    this.timer = delay > 0;
    this.scheduled = delay > 0 ? setTimeout(run, delay).unref() : setImmediate(run);
  }

  /** One slice of work: building, replaying, applying queues; then a due save. */
  private pump(): void {
    if (this.closed) return;
    const deadline = performance.now() + this.options.sliceMs;
    for (const state of this.states.values()) {
      if (performance.now() >= deadline) break;
      this.step(state, deadline);
    }
    if (!this.idle()) {
      this.schedule();
      return;
    }
    for (const resolve of this.waiters.splice(0)) resolve();
    this.saveDue();
  }

  private step(state: CollectionGraph, deadline: number): void {
    const graph = state.graph;
    if (!graph || state.status === 'loading') return;
    const source = (rowid: number): Float32Array | null => storedVectorOf(this.sql, state, rowid);
    if (state.status === 'ready') {
      graph.applySome(deadline, source);
      if (!graph.mirrorComplete && performance.now() < deadline) this.fillMirror(state, graph, deadline);
      return;
    }
    // Building or replaying: half the slice for the queue, the rest for the build, so that steady writes cannot starve it.
    graph.applySome(performance.now() + (deadline - performance.now()) / 2, source);
    if (state.status === 'building') {
      const rowids = pointsAfter(this.sql, state, state.cursor, PAGE);
      let read = 0;
      for (const rowid of rowids) {
        // A rowid written since the build started is (or was) in the queue, which holds its newer state.
        if (!graph.pending.has(rowid) && !graph.holds(rowid)) {
          const vector = storedVectorOf(this.sql, state, rowid);
          if (vector) graph.put(rowid, vector);
        }
        state.cursor = rowid;
        read++;
        if ((read & 3) === 0 && performance.now() >= deadline) return;
      }
      if (rowids.length < PAGE && graph.pending.size === 0) this.becomeReady(state);
    } else if (state.status === 'replaying') {
      const rows = this.sql
        .prepare(`SELECT seq, rowid FROM ${tablesOf(state.index).changes} WHERE collection_id = ? AND seq > ? ORDER BY seq LIMIT ${PAGE}`)
        .all(state.collection, state.cursor) as Array<{ seq: number; rowid: number }>;
      for (const row of rows) {
        graph.stale(row.rowid, { vector: undefined, seq: row.seq });
        state.cursor = row.seq;
        state.lastSeq = Math.max(state.lastSeq, row.seq);
      }
      if (rows.length < PAGE && graph.pending.size === 0) this.becomeReady(state);
    }
  }

  /** A graph read from a snapshot: its live points' stored vectors into the mirror, a page at a time (searches read vec0 for the others meanwhile). */
  private fillMirror(state: CollectionGraph, graph: HnswGraph, deadline: number): void {
    const { knn } = tablesOf(state.index);
    const rowids = pointsAfter(this.sql, state, graph.mirrorCursor, PAGE);
    const read = this.sql.prepare(`SELECT embedding FROM ${knn} WHERE rowid = ?`).pluck(true);
    let done = 0;
    for (const rowid of rowids) {
      if (graph.needsMirror(rowid)) {
        const blob = read.get(BigInt(rowid)) as Buffer | undefined;
        if (blob) graph.mirrorPut(rowid, new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)));
      }
      graph.mirrorCursor = rowid;
      if ((++done & 15) === 0 && performance.now() >= deadline) return;
    }
    if (rowids.length < PAGE) graph.mirrorComplete = true;
  }

  private becomeReady(state: CollectionGraph): void {
    state.status = 'ready';
    state.changesSinceSave = Math.max(1, state.changesSinceSave);
    state.lastChangeAt = performance.now();
  }

  private idle(): boolean {
    for (const state of this.states.values()) {
      if (state.status !== 'ready' || (state.graph?.pending.size ?? 0) > 0 || state.graph?.mirrorComplete === false) return false;
    }
    return true;
  }

  // ---- life cycle of one collection's graph ----

  private maintain(index: string, collection: string): void {
    const state = this.states.get(key(index, collection));
    if (state?.status === 'loading') return;
    if (state) {
      if (countPoints(this.sql, index, collection, 1) === 0) this.drop(state);
      else if (state.status === 'ready' && state.graph && state.graph.deletedShare() >= this.options.rebuildDeletedShare) this.build(state, state.graph.size());
      return;
    }
    if (!Number.isFinite(this.options.minPoints)) return;
    const count = countPoints(this.sql, index, collection, this.options.minPoints);
    if (count >= this.options.minPoints) {
      this.ensureTables(index);
      // Registered before the first read, so every later write is logged for the first snapshot.
      const { graphs, changes } = tablesOf(index);
      this.sql.run(`DELETE FROM ${changes} WHERE collection_id = ?`, [collection]);
      this.sql.run(`INSERT INTO ${graphs} (collection_id, covered_seq, file) VALUES (?, 0, NULL) ON CONFLICT (collection_id) DO UPDATE SET covered_seq = 0, file = NULL`, [collection]);
      this.build(this.newState(index, collection, 'building'), count);
    }
  }

  private build(state: CollectionGraph, count: number): void {
    const definition = this.sql.definition(state.index);
    state.graph = HnswGraph.create(definition.dimensions, definition.distance, this.parameters(), Math.ceil(count * 1.25));
    state.status = 'building';
    state.cursor = 0;
    // Every change logged so far was committed before the build reads the points, so the first
    // snapshot covers it: without this, a graph rebuilt on open would record position 0 and
    // leave the whole log to be replayed on the next open.
    const { changes } = tablesOf(state.index);
    const logEnd = Number(this.sql.prepare(`SELECT coalesce(max(seq), 0) FROM ${changes} WHERE collection_id = ?`).pluck(true).get(state.collection));
    state.lastSeq = Math.max(state.lastSeq, logEnd);
  }

  private load(state: CollectionGraph, file: string): void {
    const definition = this.sql.definition(state.index);
    HnswGraph.load(file, definition.dimensions, definition.distance, this.parameters()).then(
      (graph) => {
        if (this.states.get(key(state.index, state.collection)) !== state || this.closed) return;
        state.graph = graph;
        state.status = 'replaying';
        state.lastSaveAt = performance.now();
        this.schedule();
      },
      () => {
        if (this.states.get(key(state.index, state.collection)) !== state || this.closed) return;
        this.build(state, countPoints(this.sql, state.index, state.collection, Number.POSITIVE_INFINITY));
        this.schedule();
      },
    );
  }

  private drop(state: CollectionGraph, unregister = true): void {
    this.states.delete(key(state.index, state.collection));
    this.snapshots.discard(state, unregister && this.hasTables(state.index) ? 'unregister' : 'file only');
  }

  // ---- snapshots ----

  private saveDue(): void {
    if (!this.dir || this.saving) return;
    const now = performance.now();
    let wait = Infinity;
    for (const state of this.states.values()) {
      if (state.status !== 'ready' || state.changesSinceSave === 0) continue;
      const due = Math.min(state.lastChangeAt, state.lastSaveAt + 10 * this.options.saveDelayMs) + this.options.saveDelayMs - now;
      if (due <= 0 && state.graph && state.graph.unscrubbedCount() > 0) {
        // Deleted points' vectors go before the snapshot is written, a slice at a time.
        if (state.graph.unscrubbedCount() >= state.graph.size()) this.build(state, state.graph.size());
        else state.graph.scrubSome(performance.now() + this.options.sliceMs);
        this.schedule();
        return;
      }
      if (due <= 0) {
        // A failed save (disk full …) leaves the graph serving; the next due save tries again.
        this.saving = this.snapshots.save(state).catch(() => undefined).finally(() => {
          this.saving = null;
          this.schedule();
        });
        return;
      }
      wait = Math.min(wait, due);
    }
    if (Number.isFinite(wait)) this.schedule(Math.ceil(wait));
  }

  // ---- helpers ----

  private parameters(): HnswParameters {
    return { m: this.options.m, efConstruction: this.options.efConstruction, efSearch: this.options.efSearch };
  }

  private newState(index: string, collection: string, status: GraphStatus): CollectionGraph {
    const state: CollectionGraph = { index, collection, status, graph: null, cursor: 0, lastSeq: 0, changesSinceSave: 0, lastChangeAt: 0, lastSaveAt: performance.now() };
    this.states.set(key(index, collection), state);
    return state;
  }

  private hasTables(name: string): boolean {
    if (this.tablesReady.has(name)) return true;
    const found = this.sql.prepare(`SELECT 1 FROM sqlite_master WHERE name = ?`).pluck(true).get(tablesOf(name).graphs) !== undefined;
    if (found) this.tablesReady.add(name);
    return found;
  }

  /** Indexes created before the graphs get their two tables on first need. */
  private ensureTables(name: string): void {
    if (this.hasTables(name)) return;
    for (const sql of graphTablesSql(name)) this.sql.db.exec(sql);
    this.tablesReady.add(name);
  }
}

