import { comparePositions, positionFromString, type Position } from '@lore/platform/kernel';
import type { DocumentStore, Filter } from '@lore/platform/documents/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import type { EventStore } from '@lore/platform/event-store/port';
import type { ContextLog } from '@lore/platform/cqrs';
import { ReadModelLateError } from '@lore/platform/projections';
import { chunkPurges, chunkPurgesRunning } from '@lore/platform/telemetry';
import { CHUNKS, type ChunkDoc } from './knowledge.read-models';
import { CHUNK_PURGES, purgedChunks, type ChunkPurgeDoc } from './chunk-purges';

/** How often the worker looks for purges nobody waits for (a collection's; those recorded before a restart). */
const POLL_MS = 1_000;
/** Purges removed side by side, each of another workspace, their pages taking turns: a small one never waits for a large one to end. */
const LANES = 4;
/** Longest wait before a failed purge is tried again (the wait doubles from POLL_MS). */
const MAX_RETRY_MS = 5 * 60_000;
/** Workspaces a scan looks at, at most (each one indexed lookup). */
const SCAN_WORKSPACES = 10_000;
/** Longest a page holds the turn of the others (see `inTurn`), ms. */
const PAGE_TURN_MAX_MS = 1_000;
/** Chunks removed a transaction (records, then points): ~10–30 ms of the event loop on a 2-core machine. */
const PAGE = 100;

export interface ChunkPurgeWorkerDeps {
  readonly documents: DocumentStore;
  readonly vectors: VectorStore;
  readonly events: Pick<EventStore, 'headPosition'>;
  /** Resolves once every read model has passed the position (the chunks a purge removes are all written by then). */
  readonly readModelsPassed: (position: Position) => Promise<void>;
  readonly log: ContextLog;
}

/**
 * Removes the chunk records and vector points of deleted contents and collections, and of
 * contents' earlier attempts (see chunk-purges.ts): up to LANES purges at a time, each of a different workspace, the workspace
 * served longest ago first; inside a workspace, oldest deletion first. Their pages (PAGE chunks
 * a transaction) take turns one at a time, each followed by a pause as long as it took: nobody
 * waits for a purge but its own erasure, so purging takes at most half of the event loop every
 * request shares (with a bare turn between pages, a request needing a dozen turns waited behind
 * a dozen pages: a probe's creates in another workspace took up to 0.7 s). A purge is deleted
 * only once its chunks are gone; a crash or a stop before that runs it again (deleting is
 * idempotent).
 */
export class ChunkPurgeWorker {
  /** Purges being removed, by id: their workspace and their run. */
  private readonly running = new Map<string, { readonly workspaceId: string; readonly run: Promise<void> }>();
  /** Workspaces by when one of their purges last started. */
  private readonly servedAt = new Map<string, number>();
  private readonly done = new Set<() => void>();
  /** Purges that failed, by id: not tried again before this time (performance.now() ms), and how long the last wait was. */
  private readonly failed = new Map<string, { readonly until: number; readonly waitMs: number }>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  private scanning: Promise<void> | null = null;
  private rescan = false;
  private turn = 0;
  /** The last page asked for: each page waits for it, then for its pause (`inTurn`). */
  private pages: Promise<void> = Promise.resolve();
  /** What a purge waiting for the read models does when the worker stops (removed once the wait ends). */
  private readonly onStop = new Set<() => void>();
  /** Purges someone waits for (an erasure, a new attempt), by id: how many waits. */
  private readonly waited = new Map<string, number>();

  constructor(private readonly deps: ChunkPurgeWorkerDeps) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.wake();
    this.timer = setInterval(() => this.wake(), POLL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const abandon of [...this.onStop]) abandon();
    if (this.timer) clearInterval(this.timer);
    await this.scanning;
    await Promise.all([...this.running.values()].map((r) => r.run));
  }

  /** Looks for purges now (a deletion waits on one). */
  wake(): void {
    if (this.stopped) return;
    if (this.scanning !== null) {
      this.rescan = true;
      return;
    }
    this.scanning = this.scan().finally(() => {
      this.scanning = null;
      if (this.rescan) {
        this.rescan = false;
        this.wake();
      }
    });
  }

  /** Resolves once none of these purges (contents, `collection:<id>`, `attempt:<id>`) is pending; rejects after `timeoutMs`. */
  async drained(ids: readonly string[], timeoutMs: number): Promise<void> {
    for (const id of ids) this.waited.set(id, (this.waited.get(id) ?? 0) + 1);
    try {
      await this.untilGone(ids, Date.now() + timeoutMs, timeoutMs);
    } finally {
      for (const id of ids) {
        const left = (this.waited.get(id) ?? 1) - 1;
        if (left > 0) this.waited.set(id, left);
        else this.waited.delete(id);
      }
    }
  }

  private async untilGone(ids: readonly string[], deadline: number, timeoutMs: number): Promise<void> {
    const purges = this.deps.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES);
    for (;;) {
      const left = await purges.find({ filter: { id: { $in: [...ids] } }, limit: 1 });
      if (left.items.length === 0) return;
      // Late, not failed: the erasure waiting on it is tried again (after a restart, when stopping).
      if (this.stopped) throw new ReadModelLateError('the purge worker is stopping');
      if (Date.now() >= deadline) throw new ReadModelLateError(`the chunks of ${left.items[0]!.id} were not removed within ${timeoutMs} ms`);
      this.wake();
      await new Promise<void>((resolve) => {
        const finish = (): void => {
          clearTimeout(timer);
          this.done.delete(finish);
          resolve();
        };
        const timer = setTimeout(finish, Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
        this.done.add(finish);
      });
    }
  }

  private async scan(): Promise<void> {
    // Purges someone waits for go first, past their workspace's queue (a content's new attempt
    // behind its workspace's 50,000 deleted contents would time out), in lanes of their own:
    // the pages of every running purge take turns, so more of them load the event loop no more.
    const waited = [...this.waited.keys()].filter((id) => !this.running.has(id));
    if (waited.length > 0 && this.running.size < 2 * LANES) {
      const found = await this.deps.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).find({ filter: { id: { $in: waited } }, limit: 2 * LANES });
      for (const purge of found.items) if (this.running.size < 2 * LANES && this.due(purge)) this.begin(purge);
    }
    if (this.running.size >= LANES) return;
    const busy = new Set([...this.running.values()].map((r) => r.workspaceId));
    const next = await this.firstOfEachWorkspace(busy);
    // A workspace with nothing left to purge is forgotten: it banks no credit for later.
    for (const workspaceId of this.servedAt.keys()) if (!next.has(workspaceId) && !busy.has(workspaceId)) this.servedAt.delete(workspaceId);
    // The workspace served longest ago goes first (one never served before any other).
    const order = [...next.values()].sort((a, b) => (this.servedAt.get(a.workspace_id) ?? -1) - (this.servedAt.get(b.workspace_id) ?? -1));
    for (const purge of order) {
      if (this.running.size >= LANES) break;
      if (this.due(purge)) this.begin(purge);
    }
  }

  /** Not running already (a purge waited for runs outside its workspace's turn), nor waiting out a failure. */
  private due(purge: ChunkPurgeDoc): boolean {
    return !this.stopped && !this.running.has(purge.id) && (this.failed.get(purge.id)?.until ?? 0) <= performance.now();
  }

  private begin(purge: ChunkPurgeDoc): void {
    this.servedAt.set(purge.workspace_id, ++this.turn);
    const run: Promise<void> = this.run(purge).finally(() => {
      if (this.running.get(purge.id)?.run === run) this.running.delete(purge.id);
      chunkPurgesRunning.set(this.running.size);
      for (const finish of [...this.done]) finish();
      this.wake();
    });
    this.running.set(purge.id, { workspaceId: purge.workspace_id, run });
    chunkPurgesRunning.set(this.running.size);
  }

  /**
   * The oldest pending purge of each workspace with any, but those already being served: a walk
   * of the (workspace_id, position) index, one lookup a workspace, so a workspace with 50,000 purges
   * queued (a collection's contents) costs a scan what one with a single purge does.
   */
  private async firstOfEachWorkspace(busy: ReadonlySet<string>): Promise<Map<string, ChunkPurgeDoc>> {
    const purges = this.deps.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES);
    const first = new Map<string, ChunkPurgeDoc>();
    let after: string | null = null;
    for (let i = 0; i < SCAN_WORKSPACES; i++) {
      const filter: Filter = after === null ? {} : { workspace_id: { $gt: after } };
      const [purge] = (await purges.find({ filter, sort: [['workspace_id', 'asc'], ['position', 'asc']], limit: 1 })).items;
      if (purge === undefined) break;
      // A purge that failed holds back its own workspace's until its retry is due, no other's.
      if (!busy.has(purge.workspace_id)) first.set(purge.workspace_id, purge);
      after = purge.workspace_id;
    }
    return first;
  }

  private async run(purge: ChunkPurgeDoc): Promise<void> {
    try {
      if (!(await this.readModelsPassed(purge))) return;
      // Taken back meanwhile (a replay's record, see readModelsPassed) or recorded again (its next run).
      const current = await this.deps.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).get(purge.id);
      if (current?.position !== purge.position || !(await this.removeChunks(purge))) return;
      // Only as it was read: a content that started over again meanwhile recorded it anew, to be run again.
      await this.deps.documents.write([{ collection: CHUNK_PURGES, op: 'deleteMany', filter: { id: purge.id, position: purge.position } }]);
      this.failed.delete(purge.id);
      chunkPurges.inc({ outcome: 'done' });
    } catch (error) {
      const waitMs = Math.min(MAX_RETRY_MS, 2 * (this.failed.get(purge.id)?.waitMs ?? POLL_MS / 2));
      this.failed.set(purge.id, { until: performance.now() + waitMs, waitMs });
      chunkPurges.inc({ outcome: 'failed' });
      this.deps.log.error({ purge: purge.id, workspaceId: purge.workspace_id, retryInMs: waitMs, err: error instanceof Error ? error.message : String(error) }, 'removing the chunks of a purge failed; it is tried again');
    }
  }

  /**
   * Whether the read models have passed the purge and every event before the log's head now;
   * false when the worker stopped first (the purge is left for the next start). The head, not
   * only the purge: a projection replayed while Lore runs (a new version catching up) records
   * purges of long ago that its own later events take back (an attempt's first chunks,
   * chunks.projection.ts), and the chunks they would remove are current.
   */
  private async readModelsPassed(purge: ChunkPurgeDoc): Promise<boolean> {
    const recorded = positionFromString(purge.position);
    const head = await this.deps.events.headPosition();
    const position = comparePositions(head, recorded) > 0 ? head : recorded;
    return new Promise<boolean>((resolve, reject) => {
      const abandon = (): void => resolve(false);
      this.onStop.add(abandon);
      this.deps.readModelsPassed(position).then(
        () => resolve(true),
        (error: unknown) => reject(error),
      ).finally(() => this.onStop.delete(abandon));
    });
  }

  /** False when the worker stopped first (the purge is left for the next start). */
  private async removeChunks(purge: ChunkPurgeDoc): Promise<boolean> {
    const chunks = this.deps.documents.collection<ChunkDoc>(CHUNKS);
    const { filter, sort } = purgedChunks(purge);
    // Every index: a collection being re-indexed has points in two (a point id is its chunk's id).
    const indexes = (await this.deps.vectors.listIndexes()).map((index) => index.name);
    for (;;) {
      if (this.stopped) return false;
      const removed = await this.inTurn(async () => {
        const ids = (await chunks.find({ filter, sort, limit: PAGE })).items.map((chunk) => chunk.id);
        if (ids.length === 0) return 0;
        for (const index of indexes) await this.deps.vectors.write([{ op: 'delete', index, ids }]);
        await this.deps.documents.write(ids.map((id) => ({ collection: CHUNKS, op: 'delete' as const, id })));
        return ids.length;
      });
      if (removed === 0) break;
    }
    // Points whose record was gone already (an attempt's chunks replaced meanwhile): one pass by filter, which finds few or none.
    await this.deps.vectors.write([{ op: 'deleteWhere', collections: [purge.collection_id], ...(purge.content_id === null ? {} : { filter: { content_id: purge.content_id } }) }]);
    return true;
  }

  /** Runs one page once the pages asked for before it have run, and holds the next one back for as long as it took. */
  private async inTurn<T>(page: () => Promise<T>): Promise<T> {
    const before = this.pages;
    let release!: () => void;
    this.pages = new Promise((resolve) => (release = resolve));
    await before;
    const started = performance.now();
    // A page that waits on its store (a remote index slow to answer) holds the others back no longer than this.
    const overdue = setTimeout(release, PAGE_TURN_MAX_MS);
    try {
      return await page();
    } finally {
      clearTimeout(overdue);
      setTimeout(release, Math.max(1, performance.now() - started));
    }
  }
}
