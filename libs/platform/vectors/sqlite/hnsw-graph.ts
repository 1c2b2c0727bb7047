/**
 * One collection's HNSW graph (hnswlib through `hnswlib-node`), with the writes it has not
 * taken in yet. The SQLite tables stay the source of truth; the graph only proposes the
 * nearest rowids, and the index re-scores them from their stored vectors (`sqlite-vector-index.ts`).
 *
 * - Labels are the points' SQLite rowids (hnswlib-node takes 32-bit labels).
 * - A write never waits for the graph: `stale()` marks the rowid deleted in the graph at once
 *   (so an old vector is never proposed) and queues the new state in `pending`; `search()`
 *   scans `pending` exactly beside the graph, so a point is found as soon as the write
 *   returns (read-your-writes). `applySome()` moves pending entries into the graph in slices.
 * - Deleting a point marks it deleted at once (searches never propose it again) and leaves its
 *   vector to be overwritten with a seeded random unit vector later (`scrubSome`), before any
 *   snapshot is written, so no file keeps a deleted point's vector. Overwriting is an insertion
 *   into the graph (~0.3 ms a point): done as each deletion arrived, a content of 26,000 chunks
 *   cost ~8 s of the event loop, even when its collection then emptied and the graph was dropped.
 *   Deleted slots stay in the graph as routing nodes until the graph is rebuilt (`deletedShare()`).
 * - Beside the graph, `mirror` holds each live point's stored vector (vec0's float32 values), by
 *   rowid: the index scores the graph's hits and the hybrid completion from it
 *   (`vectorOf`). A graph read from a snapshot starts with an empty mirror, filled in the
 *   background (`sqlite-graphs.ts`); until then `vectorOf` says unknown and the index reads vec0.
 * - Slot reuse (hnswlib's `replaceDeleted`) stays off: reusing a slot can drop another label
 *   from hnswlib's lookup when the same label is re-added, and keeping it off keeps every
 *   label's state (absent / live / deleted) known here.
 */
import { HierarchicalNSW } from 'hnswlib-node';
import type { Distance } from '@lore/platform/vectors/port';
import { seeded } from '@lore/platform/vectors/port';
import { VectorMirror } from './vector-mirror';

export interface HnswParameters {
  /** hnswlib's M: links per node (default GRAPH_DEFAULTS.m). */
  readonly m: number;
  readonly efConstruction: number;
  /** Candidate list size while searching, up to EF_BASE_POINTS points: max(efSearch, k); see `efFor`. */
  readonly efSearch: number;
}

/** Graph size up to which `efSearch` is used as configured. */
export const EF_BASE_POINTS = 100_000;

/**
 * The candidate list a search of a graph of `live` points uses: `efSearch` up to
 * EF_BASE_POINTS, then growing with the square root of the size (×3.2 at 1M), since a fixed ef
 * loses recall as the graph grows. Measured with bench:search (M 16, efConstruction 100, 300
 * real queries): ef 64 gives recall@10 .98 at 100k but .907 at 1M; ef 200 at 1M gives .968 for
 * 0.59 ms instead of 0.30 ms p50.
 */
export function efFor(efSearch: number, live: number): number {
  return live <= EF_BASE_POINTS ? efSearch : Math.ceil(efSearch * Math.sqrt(live / EF_BASE_POINTS));
}

/**
 * A pending write: the point's new stored vector, null once deleted, or undefined to read it
 * from SQLite when applied (while the graph is built or caught up, when nothing searches
 * `pending`); `seq` is its position in the change log (0 when not logged).
 */
export interface PendingEntry {
  readonly vector: Float32Array | null | undefined;
  readonly seq: number;
}

/** The point's current stored vector in this collection, or null when it is gone. */
export type VectorSource = (rowid: number) => Float32Array | null;

export interface Candidate {
  readonly rowid: number;
  /** The graph's distance (cosine: 1 − dot of unit vectors; euclidean: squared L2): for ordering only. */
  readonly distance: number;
}

const ABSENT = 0;
const LIVE = 1;
const DELETED = 2;
const MAX_LABEL = 0xffff_ffff;

export class HnswGraph {
  readonly pending = new Map<number, PendingEntry>();
  /** The stored vector of every live point put since the graph was created or read (`vectorOf`). */
  readonly mirror: VectorMirror;
  /** Per rowid: ABSENT, LIVE or DELETED in the graph. */
  private states = new Uint8Array(1024);
  private live = 0;
  private deleted = 0;
  /** Deleted labels whose vector the graph still holds (see `scrubSome`). */
  private readonly unscrubbed = new Set<number>();
  /** Set while a snapshot is being written: the graph must not change under the writer thread. */
  saving = false;
  /** False while a graph read from a snapshot has live points the mirror lacks; `mirrorCursor`: the last rowid the fill read. */
  mirrorComplete = true;
  mirrorCursor = 0;
  /** Change-log position every change up to which the graph reflects (pending excluded). */
  appliedSeq = 0;

  private constructor(
    private readonly index: HierarchicalNSW,
    readonly dimensions: number,
    private readonly distance: Distance,
    private readonly parameters: HnswParameters,
  ) {
    this.mirror = new VectorMirror(dimensions);
  }

  static create(dimensions: number, distance: Distance, parameters: HnswParameters, capacity: number): HnswGraph {
    const index = new HierarchicalNSW(distance === 'cosine' ? 'cosine' : 'l2', dimensions);
    index.initIndex({ maxElements: Math.max(1024, capacity), m: parameters.m, efConstruction: parameters.efConstruction, randomSeed: 100, allowReplaceDeleted: false });
    return new HnswGraph(index, dimensions, distance, parameters);
  }

  /** Reads a snapshot (on a libuv thread: the event loop stays free). */
  static async load(file: string, dimensions: number, distance: Distance, parameters: HnswParameters): Promise<HnswGraph> {
    const index = new HierarchicalNSW(distance === 'cosine' ? 'cosine' : 'l2', dimensions);
    await index.readIndex(file, false);
    const graph = new HnswGraph(index, dimensions, distance, parameters);
    graph.mirrorComplete = false;
    // Labels deleted in the snapshot are counted live here until `forget` scrubs them again.
    const labels = index.getIdsList();
    for (const label of labels) graph.setState(label, LIVE);
    graph.live = labels.length;
    return graph;
  }

  /** Whether the graph holds the rowid (live or deleted): a write since the build started put it there. */
  holds(rowid: number): boolean {
    return this.stateOf(rowid) !== ABSENT;
  }

  size(): number {
    return this.live;
  }

  /** Share of the graph's slots held by deleted points. */
  deletedShare(): number {
    const total = this.live + this.deleted;
    return total === 0 ? 0 : this.deleted / total;
  }

  /** A write changed this rowid: never propose its old vector again (`search` skips pending rowids while a snapshot is written), and queue its new state. */
  stale(rowid: number, entry: PendingEntry): void {
    if (this.stateOf(rowid) === LIVE && !this.saving) this.markDeleted(rowid);
    this.mirror.delete(rowid);
    this.pending.set(rowid, entry);
  }

  /** Moves pending entries into the graph until `deadline` (performance.now() ms); false when some remain. */
  applySome(deadline: number, source: VectorSource): boolean {
    if (this.saving) return this.pending.size === 0;
    let done = 0;
    for (const [rowid, entry] of this.pending) {
      const vector = entry.vector === undefined ? source(rowid) : entry.vector;
      if (vector) this.put(rowid, vector);
      else if (this.stateOf(rowid) !== ABSENT) this.remove(rowid);
      this.pending.delete(rowid);
      if (entry.seq > this.appliedSeq) this.appliedSeq = entry.seq;
      if ((++done & 3) === 0 && performance.now() >= deadline) break;
    }
    return this.pending.size === 0;
  }

  /** Deleted labels whose vector is still in the graph. */
  unscrubbedCount(): number {
    return this.unscrubbed.size;
  }

  /** Takes the queued deletions in (cheap: marks; `scrubSome` overwrites), so that a snapshot written now holds none of their vectors. */
  applyDeletions(): void {
    if (this.saving) return;
    for (const [rowid, entry] of this.pending) {
      if (entry.vector !== null) continue;
      if (this.stateOf(rowid) !== ABSENT) this.remove(rowid);
      this.pending.delete(rowid);
      if (entry.seq > this.appliedSeq) this.appliedSeq = entry.seq;
    }
  }

  /** Overwrites deleted labels' vectors until `deadline` (performance.now() ms); true when none is left. */
  scrubSome(deadline: number): boolean {
    if (this.saving) return this.unscrubbed.size === 0;
    let done = 0;
    for (const rowid of this.unscrubbed) {
      this.scrub(rowid);
      this.unscrubbed.delete(rowid);
      if ((++done & 3) === 0 && performance.now() >= deadline) break;
    }
    return this.unscrubbed.size === 0;
  }

  /** Adds or replaces a point's vector (stored form: unit length for cosine). */
  put(rowid: number, vector: Float32Array): void {
    if (rowid > MAX_LABEL) throw new Error(`rowid ${rowid} exceeds the graph's 32-bit labels`);
    const state = this.stateOf(rowid);
    const count = this.index.getCurrentCount();
    // Doubling keeps resizes rare: each copies the graph's memory on the event loop (~1.7 KB per 384-dimension point).
    if (state === ABSENT && count >= this.index.getMaxElements()) this.index.resizeIndex(count * 2 + 1024);
    // On an existing label (live or deleted) hnswlib updates the vector in place and unmarks it.
    this.index.addPoint(Array.from(vector), rowid);
    this.unscrubbed.delete(rowid);
    this.mirror.set(rowid, vector);
    if (state === DELETED) this.deleted--;
    if (state !== LIVE) this.live++;
    this.setState(rowid, LIVE);
  }

  /**
   * The graph's nearest `k` beside the exact nearest among pending points, merged, nearest
   * first. `query` in stored form.
   */
  search(query: Float32Array, k: number): Candidate[] {
    const found: Candidate[] = [];
    // Pending rowids still live in the graph (queued while a snapshot was written) hold an old vector there: skipped below.
    let overlap = 0;
    for (const [rowid, entry] of this.pending) {
      if (this.stateOf(rowid) === LIVE) overlap++;
      if (entry.vector) found.push({ rowid, distance: this.distanceTo(query, entry.vector) });
    }
    if (this.live > 0) {
      const wanted = Math.min(k + overlap, this.live);
      this.index.setEf(Math.max(efFor(this.parameters.efSearch, this.live), wanted));
      const result = this.index.searchKnn(Array.from(query), wanted);
      result.neighbors.forEach((rowid, i) => {
        if (overlap === 0 || !this.pending.has(rowid)) found.push({ rowid, distance: result.distances[i] ?? Infinity });
      });
    }
    found.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return found.length > k ? found.slice(0, k) : found;
  }

  /**
   * The point's stored vector as the graph knows it: its pending state when a write is queued
   * (null once deleted), else the mirror's copy when the point is live in the graph; undefined
   * when unknown here (not mirrored yet, or queued to be read from SQLite).
   */
  vectorOf(rowid: number): Float32Array | null | undefined {
    const entry = this.pending.get(rowid);
    if (entry) return entry.vector;
    if (this.stateOf(rowid) !== LIVE) return undefined;
    return this.mirror.get(rowid) ?? undefined;
  }

  /** Whether the point is live in the graph and not yet in the mirror (a graph read from a snapshot). */
  needsMirror(rowid: number): boolean {
    return this.stateOf(rowid) === LIVE && !this.pending.has(rowid) && !this.mirror.has(rowid);
  }

  /** Fills the mirror for a live point (a graph read from a snapshot). */
  mirrorPut(rowid: number, vector: Float32Array): void {
    if (this.needsMirror(rowid)) this.mirror.set(rowid, vector);
  }

  /** Writes a snapshot (on a libuv thread); the caller keeps the graph unchanged meanwhile (`saving`). */
  async save(file: string): Promise<void> {
    await this.index.writeIndex(file);
  }

  private distanceTo(query: Float32Array, vector: Float32Array): number {
    let s = 0;
    if (this.distance === 'cosine') {
      for (let d = 0; d < this.dimensions; d++) s += (query[d] ?? 0) * (vector[d] ?? 0);
      return 1 - s;
    }
    for (let d = 0; d < this.dimensions; d++) {
      const x = (query[d] ?? 0) - (vector[d] ?? 0);
      s += x * x;
    }
    return s;
  }

  /** Marks a label deleted, its vector to be overwritten later (`scrubSome`). */
  private remove(rowid: number): void {
    this.mirror.delete(rowid);
    if (this.stateOf(rowid) === LIVE) this.markDeleted(rowid);
    this.unscrubbed.add(rowid);
  }

  /** Overwrites a deleted label's vector with a seeded random one, and marks it deleted again (addPoint revives it). */
  private scrub(rowid: number): void {
    this.mirror.delete(rowid);
    const random = seeded(rowid);
    const noise = Array.from({ length: this.dimensions }, () => random() * 2 - 1);
    this.index.addPoint(noise, rowid);
    if (this.stateOf(rowid) === DELETED) {
      this.deleted--;
      this.live++;
    }
    this.setState(rowid, LIVE);
    this.markDeleted(rowid);
  }

  private markDeleted(rowid: number): void {
    try {
      this.index.markDelete(rowid);
    } catch (error) {
      // A label a snapshot already held deleted (`load` counts every label live): it is deleted either way.
      if (!/already deleted/i.test(error instanceof Error ? error.message : String(error))) throw error;
    }
    this.live--;
    this.deleted++;
    this.setState(rowid, DELETED);
  }

  private stateOf(rowid: number): number {
    return rowid < this.states.length ? (this.states[rowid] ?? ABSENT) : ABSENT;
  }

  private setState(rowid: number, state: number): void {
    if (rowid >= this.states.length) {
      let length = this.states.length;
      while (length <= rowid) length *= 2;
      const grown = new Uint8Array(length);
      grown.set(this.states);
      this.states = grown;
    }
    this.states[rowid] = state;
  }
}
