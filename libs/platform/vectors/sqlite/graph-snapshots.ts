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
