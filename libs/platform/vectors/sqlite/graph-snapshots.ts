/**
 * A graph's snapshot file (hnswlib's format: vectors, links and rowid labels; no text, no
 * payload): written on a libuv thread while the graph stays unchanged, renamed into place, and
 * only then is the log position it covers recorded and the log before it trimmed, so that a
 * crash leaves either the old snapshot with its position or the new one with the old position.
 */
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { basename, join } from 'node:path';
import { tablesOf } from './sqlite-vector-schema';
import type { CollectionGraph, GraphSql } from './graph-state';

/** Deleted points a closing store overwrites before its last save in any case (see `saveOnClose`). */
const SCRUB_ON_CLOSE_MAX = 2_000;

export class GraphSnapshots {
  private queue: Promise<void> = Promise.resolve();

  constructor(
    private readonly sql: GraphSql,
    /** Where snapshots go; null for an in-memory store. */
    readonly dir: string | null,
    /** Whether the state is still the live one of its collection (not dropped or replaced meanwhile). */
    private readonly isCurrent: (state: CollectionGraph) => boolean,
  ) {}

  fileOf(state: CollectionGraph): string | null {
    if (!this.dir) return null;
    const digest = createHash('sha256').update(state.collection).digest('hex').slice(0, 24);
    return join(this.dir, `${state.index}-${digest}.hnsw`);
  }

  /** One save at a time (background, flush and close may ask at once): each writes the same temporary file. */
  save(state: CollectionGraph): Promise<void> {
    const run = this.queue.then(() => this.saveNow(state));
    this.queue = run.catch(() => undefined);
    return run;
  }

  /**
   * The last save of a closing store. Overwriting a deleted point's vector is an insertion: with
   * more than SCRUB_ON_CLOSE_MAX of them, and more than a quarter of the graph, the snapshot is
   * discarded instead and the graph rebuilt on the next open, which costs less.
   */
  async saveOnClose(state: CollectionGraph): Promise<void> {
    state.graph?.applyDeletions();
    const unscrubbed = state.graph?.unscrubbedCount() ?? 0;
    if (unscrubbed > SCRUB_ON_CLOSE_MAX && unscrubbed * 4 > (state.graph?.size() ?? 0)) this.discard(state, 'rebuild on open');
    else await this.save(state);
  }

  /**
   * Deletes the graph's snapshot file, and with `unregister` its registry row and change log (the
   * graph is gone), or with `rebuild on open` keeps it registered without a file (the next open
   * builds it from the points).
   */
  discard(state: CollectionGraph, registry: 'file only' | 'unregister' | 'rebuild on open'): void {
    const file = this.fileOf(state);
    if (file) rmSync(file, { force: true });
    if (registry === 'file only') return;
    const { graphs, changes } = tablesOf(state.index);
    if (registry === 'unregister') this.sql.run(`DELETE FROM ${graphs} WHERE collection_id = ?`, [state.collection]);
    else this.sql.run(`UPDATE ${graphs} SET covered_seq = 0, file = NULL WHERE collection_id = ?`, [state.collection]);
    this.sql.run(`DELETE FROM ${changes} WHERE collection_id = ?`, [state.collection]);
  }

  private async saveNow(state: CollectionGraph): Promise<void> {
    const graph = state.graph;
    const file = this.fileOf(state);
    if (!graph || !file || !this.dir || state.changesSinceSave === 0 || !this.isCurrent(state)) return;
    mkdirSync(this.dir, { recursive: true });
    let covered = state.lastSeq;
    for (const entry of graph.pending.values()) if (entry.seq > 0) covered = Math.min(covered, entry.seq - 1);
    // What deletions are left since the background scrubbed (a flush, a close), queued ones too: no file keeps a deleted point's vector.
    graph.applyDeletions();
    graph.scrubSome(Number.POSITIVE_INFINITY);
    const changes = state.changesSinceSave;
    graph.saving = true;
    try {
      await graph.save(`${file}.tmp`);
    } finally {
      graph.saving = false;
    }
    if (!this.sql.db.open) return;
    if (!this.isCurrent(state) || state.graph !== graph) {
      rmSync(`${file}.tmp`, { force: true });
      return;
    }
    renameSync(`${file}.tmp`, file);
    const { graphs, changes: log } = tablesOf(state.index);
    this.sql.db.transaction(() => {
      this.sql.run(`UPDATE ${graphs} SET covered_seq = ?, file = ? WHERE collection_id = ?`, [covered, basename(file), state.collection]);
      this.sql.run(`DELETE FROM ${log} WHERE collection_id = ? AND seq <= ?`, [state.collection, covered]);
    })();
    state.changesSinceSave -= changes;
    state.lastSaveAt = performance.now();
  }
}
