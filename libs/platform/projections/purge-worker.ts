import { comparePositions, positionFromString, reactingTo, type Position } from '@lore/platform/kernel';
import type { Doc, DocumentStore, Filter } from '@lore/platform/documents/port';
import type { EventStore } from '@lore/platform/event-store/port';
import { purges as purgeCount, purgesRunning } from '@lore/platform/telemetry';
import { ReadModelLateError } from './projection-runner';

/** How often the worker looks for purges nobody waits for (those recorded before a restart, say). */
const POLL_MS = 1_000;
/**
 * Purges removed side by side, each of another workspace, their pages taking turns: a small one
 * never waits for a large one to end. A purge still waiting for the read models or its
 * deletion's erasure holds no lane: the erasure reactor serves every workspace in log order, and
 * purges waiting there held the lanes of others that needed no erasure (a content's earlier attempts).
 */
const LANES = 4;
/**
 * Purges begun and not ended at most, those waiting for their erasure or a lane included: one a
 * workspace in their turn, up to RUNNING_MAX - HURRIED_SLOTS of those, so that one someone waits
 * for (a DELETE, a content's next attempt) always finds a place.
 */
const RUNNING_MAX = 64;
const HURRIED_SLOTS = 2 * LANES;
/** Longest wait before a failed purge is tried again (the wait doubles from POLL_MS). */
const MAX_RETRY_MS = 5 * 60_000;
/** Workspaces a scan looks at, at most (each one indexed lookup). */
const SCAN_WORKSPACES = 10_000;
/** Longest a page holds the turn of the others (see `inTurn`), ms. */
const PAGE_TURN_MAX_MS = 1_000;
/** Failing purges a workspace's scan looks past for one that is due (see `firstDueOf`). */
const FAILED_PASSED = 64;
/** Ids in one `$in` (SQLite binds each as a parameter; a user's 100,000 deleted memories are waited for at once). */
const ID_LIST = 1_000;
/**
 * What a page aims to take of the event loop, ms: each purge's page size follows the time its
 * pages take there (`nextPageSize`). One fixed size does not fit every engine and every document: a conversation's
 * 100 messages took ~65 ms a page under FTS5's secure-delete (a probe; their words are in every
 * message), a memory's 100 versions a few.
 */
export const PAGE_TARGET_MS = 15;
export const FIRST_PAGE = 100;
const MIN_PAGE = 10;
const MAX_PAGE = 1_000;

/** The next page's size after one of `size` removed `removed` in `tookMs`: towards PAGE_TARGET_MS, within MIN_PAGE..MAX_PAGE. */
export function nextPageSize(size: number, removed: number, tookMs: number): number {
  if (tookMs > PAGE_TARGET_MS * 1.5) return Math.max(MIN_PAGE, Math.floor((size * PAGE_TARGET_MS) / tookMs));
  // A short page that was full: larger ones cost fewer transactions (a page short of its size was the last).
  if (tookMs < PAGE_TARGET_MS / 2 && removed >= size) return Math.min(MAX_PAGE, size * 2);
  return size;
}

/**
 * A record of documents (and whatever else) to remove after the projections' batch that made
 * them unreachable: a deleted content's chunks, a deleted conversation's messages. Removing
 * tens of thousands of them inside that batch held the projections for seconds, and every
 * workspace's writes waited for them (read-your-writes; probes saw 503s). The projection
 * records the purge instead (constant work), reads leave out what it names from then on, and
 * this worker removes it afterwards.
 */
export interface PurgeDoc extends Doc {
  readonly workspace_id: string;
  /**
   * The deletion's place in the log, zero-padded so that it sorts in log order (a workspace's
   * purges go oldest first; `positionFromString` reads it): the purge waits until the read models have passed it.
   */
  readonly position: string;
}

/** A position as a purge record keeps it (see `PurgeDoc.position`). */
export function purgePosition(position: Position): string {
  const digits = (n: bigint): string => n.toString().padStart(20, '0');
  return `${digits(position.commit)}:${digits(position.prepare)}`;
}

export interface PurgeWorkerDeps<P extends PurgeDoc> {
  readonly documents: DocumentStore;
  readonly events: Pick<EventStore, 'headPosition'>;
  /**
   * Resolves once every read model has passed `position`, the log's head or the purge's if later
   * (what a purge removes is all written by then), and whatever else the purge's end must follow
   * has passed the deletion, `recorded` (an erasure that does not itself wait for the purge: a
   * purge's end then means its DELETE is done).
   */
  readonly readModelsPassed: (position: Position, recorded: Position, purge: P) => Promise<void>;
  readonly log: { error(fields: Record<string, unknown>, message: string): void };
  /** The collection of the purge records (indexed on workspace_id, position). */
  readonly records: string;
  /** What the purges remove, as `lore_purges_total` and `lore_purges_running` label it: chunks, messages. */
  readonly kind: string;
  /** Removes one page of what the purge names, at most `limit` of its items (a transaction or two); how much it removed, 0 once none is left. */
  readonly removePage: (purge: P, limit: number) => Promise<number>;
  /** After the last page: what the pages cannot find (a content's points whose records were gone already). */
  readonly afterPages?: (purge: P) => Promise<void>;
}

/**
 * Removes what purge records name: up to LANES purges at a time, each of a different
 * workspace, the workspace served longest ago first; inside a workspace, oldest deletion first;
 * a purge someone waits for (an erasure, a new attempt) first of all. Their pages, and every
 * other purge worker's in the process, take turns one at a time, each followed by a pause as
 * long as it took: nobody waits for a purge but its
 * own erasure, so purging takes at most half of the event loop every request shares (with a
 * bare turn between pages, a request needing a dozen turns waited behind a dozen pages: a
 * probe's creates in another workspace took up to 0.7 s). A record is deleted only once what it
 * names is gone, and only as it was read (recorded again meanwhile, it runs again); a crash or a
 * stop before that runs it again (removing is idempotent).
 */
export class PurgeWorker<P extends PurgeDoc> {
  /** Purges being removed, by id: their workspace and their run. */
  private readonly running = new Map<string, { readonly workspaceId: string; readonly run: Promise<void> }>();
  /** Of those, the ones past their waits, removing (what the lanes count). */
  private readonly removing = new Set<string>();
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
  /**
   * The last page asked for, of every purge worker of the process (they share its event loop):
   * each page waits for it, then for its pause (`inTurn`).
   */
  private static pages: Promise<void> = Promise.resolve();
  /** What a purge waiting for the read models does when the worker stops (removed once the wait ends). */
  private readonly onStop = new Set<() => void>();
  /** Purges someone waits for, by id: how many waits. */
  private readonly waited = new Map<string, number>();

  constructor(private readonly deps: PurgeWorkerDeps<P>) {}

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
    // In a context of its own, not the caller's: a scan a DELETE woke, and every purge it starts,
    // would inherit that request's deadline (their waits cut to what is left of it, then to none).
    this.scanning = reactingTo(null, `${this.deps.kind}-purge`, () => this.scan())
      .catch((error: unknown) => this.deps.log.error({ err: error instanceof Error ? error.message : String(error) }, `looking for ${this.deps.kind} purges failed; it looks again`))
      .finally(() => {
        this.scanning = null;
        if (this.rescan) {
          this.rescan = false;
          this.wake();
        }
      });
  }

  /** Resolves once none of these purges is pending; rejects (unavailable) after `timeoutMs`. */
  async drained(ids: readonly string[], timeoutMs: number): Promise<void> {
    await this.hurried(ids, () => this.untilGone(async () => (await this.pending(ids, 1))[0], Date.now() + timeoutMs, timeoutMs));
  }

  /**
   * Resolves once no purge record matches `filter` (a collection's purges, its contents'
   * included); rejects (unavailable) after `timeoutMs`. The purges `hurriedIds` run ahead of their
   * workspace's queue, in lanes of their own, the rest in their workspace's turn: a collection of
   * 10,000 contents does not take every lane.
   */
  async drainedWhere(filter: Filter, hurriedIds: readonly string[], timeoutMs: number): Promise<void> {
    const records = this.deps.documents.collection<P>(this.deps.records);
    await this.hurried(hurriedIds, () => this.untilGone(async () => (await records.find({ filter, limit: 1 })).items[0], Date.now() + timeoutMs, timeoutMs));
  }

  /** Runs `wait` with these purges ahead of their workspaces' queues (see `scan`). */
  private async hurried(ids: readonly string[], wait: () => Promise<void>): Promise<void> {
    for (const id of ids) this.waited.set(id, (this.waited.get(id) ?? 0) + 1);
    try {
      await wait();
    } finally {
      for (const id of ids) {
        const left = (this.waited.get(id) ?? 1) - 1;
        if (left > 0) this.waited.set(id, left);
        else this.waited.delete(id);
      }
    }
  }

  /** Until `pending` finds none left; late (ReadModelLateError) past the deadline. */
  private async untilGone(pending: () => Promise<P | undefined>, deadline: number, timeoutMs: number): Promise<void> {
    for (;;) {
      const left = await pending();
      if (left === undefined) return;
      // Late, not failed: what waits on it is tried again (after a restart, when stopping).
      if (this.stopped) throw new ReadModelLateError('the purge worker is stopping');
      if (Date.now() >= deadline) throw new ReadModelLateError(`the ${this.deps.kind} of ${left.id} were not removed within ${timeoutMs} ms`);
      this.wake();
      await this.nextEnd(Math.min(POLL_MS, Math.max(1, deadline - Date.now())));
    }
  }

  /** Until a running purge ends, or `ms` have passed. */
  private nextEnd(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const finish = (): void => {
        clearTimeout(timer);
        this.done.delete(finish);
        resolve();
      };
      const timer = setTimeout(finish, ms);
      this.done.add(finish);
    });
  }

  private async scan(): Promise<void> {
    // Purges someone waits for go first, past their workspace's queue (a content's new attempt
    // behind its workspace's 50,000 deleted contents would time out), in lanes of their own:
    // the pages of every running purge take turns, so more of them load the event loop no more.
    const waited = [...this.waited.keys()].filter((id) => !this.running.has(id));
    if (waited.length > 0 && this.running.size < RUNNING_MAX) {
      for (const purge of await this.pending(waited, 2 * LANES)) if (this.running.size < RUNNING_MAX && this.due(purge)) this.begin(purge);
    }
    if (this.running.size >= RUNNING_MAX - HURRIED_SLOTS) return;
    const busy = new Set([...this.running.values()].map((r) => r.workspaceId));
    const next = await this.firstOfEachWorkspace(busy);
    // A workspace with nothing left to purge is forgotten: it banks no credit for later.
    for (const workspaceId of this.servedAt.keys()) if (!next.has(workspaceId) && !busy.has(workspaceId)) this.servedAt.delete(workspaceId);
    // The workspace served longest ago goes first (one never served before any other).
    const order = [...next.values()].sort((a, b) => (this.servedAt.get(a.workspace_id) ?? -1) - (this.servedAt.get(b.workspace_id) ?? -1));
    for (const purge of order) {
      if (this.running.size >= RUNNING_MAX - HURRIED_SLOTS) break;
      if (this.due(purge)) this.begin(purge);
    }
  }

  /** Up to `limit` of the purges these ids name that are still recorded. */
  private async pending(ids: readonly string[], limit: number): Promise<P[]> {
    const records = this.deps.documents.collection<P>(this.deps.records);
    const items: P[] = [];
    for (let i = 0; i < ids.length && items.length < limit; i += ID_LIST) {
      items.push(...(await records.find({ filter: { id: { $in: ids.slice(i, i + ID_LIST) } }, limit: limit - items.length })).items);
    }
    return items;
  }

  /** Not running already (a purge waited for runs outside its workspace's turn), nor waiting out a failure. */
  private due(purge: P): boolean {
    return !this.stopped && !this.running.has(purge.id) && (this.failed.get(purge.id)?.until ?? 0) <= performance.now();
  }

  private begin(purge: P): void {
    this.servedAt.set(purge.workspace_id, ++this.turn);
    const run: Promise<void> = this.run(purge).finally(() => {
      if (this.running.get(purge.id)?.run === run) {
        this.running.delete(purge.id);
        this.removing.delete(purge.id);
      }
      purgesRunning.set({ kind: this.deps.kind }, this.removing.size);
      for (const finish of [...this.done]) finish();
      this.wake();
    });
    this.running.set(purge.id, { workspaceId: purge.workspace_id, run });
  }

  /**
   * The oldest pending purge of each workspace with any, but those already being served: a walk
   * of the (workspace_id, position) index, one lookup a workspace, so a workspace with 50,000 purges
   * queued (a collection's contents) costs a scan what one with a single purge does.
   */
  private async firstOfEachWorkspace(busy: ReadonlySet<string>): Promise<Map<string, P>> {
    const records = this.deps.documents.collection<P>(this.deps.records);
    const first = new Map<string, P>();
    let after: string | null = null;
    for (let i = 0; i < SCAN_WORKSPACES; i++) {
      const filter: Filter = after === null ? {} : { workspace_id: { $gt: after } };
      const [purge] = (await records.find({ filter, sort: [['workspace_id', 'asc'], ['position', 'asc']], limit: 1 })).items;
      if (purge === undefined) break;
      if (!busy.has(purge.workspace_id)) first.set(purge.workspace_id, this.due(purge) ? purge : await this.firstDueOf(purge.workspace_id, purge));
      after = purge.workspace_id;
    }
    return first;
  }

  /**
   * The workspace's oldest purge not waiting out a failure, past the ones that are (up to
   * FAILED_PASSED of them): a purge that keeps failing (its erasure parked, an operator's
   * matter) must not hold back the workspace's later deletions. `oldest` when none is due.
   */
  private async firstDueOf(workspaceId: string, oldest: P): Promise<P> {
    const records = this.deps.documents.collection<P>(this.deps.records);
    const { items } = await records.find({ filter: { workspace_id: workspaceId }, sort: [['position', 'asc']], limit: FAILED_PASSED + 1 });
    return items.find((purge) => this.due(purge)) ?? oldest;
  }

  private async run(purge: P): Promise<void> {
    try {
      if (!(await this.readModelsPassed(purge)) || !(await this.lane(purge))) return;
      // Taken back meanwhile (a replay's record, see readModelsPassed) or recorded again (its next run).
      const current = await this.deps.documents.collection<P>(this.deps.records).get(purge.id);
      if (current?.position !== purge.position || !(await this.remove(purge))) return;
      // Only as it was read: recorded anew meanwhile, it is run again.
      await this.deps.documents.write([{ collection: this.deps.records, op: 'deleteMany', filter: { id: purge.id, position: purge.position } }]);
      this.failed.delete(purge.id);
      purgeCount.inc({ kind: this.deps.kind, outcome: 'done' });
    } catch (error) {
      const waitMs = Math.min(MAX_RETRY_MS, 2 * (this.failed.get(purge.id)?.waitMs ?? POLL_MS / 2));
      this.failed.set(purge.id, { until: performance.now() + waitMs, waitMs });
      purgeCount.inc({ kind: this.deps.kind, outcome: 'failed' });
      this.deps.log.error({ purge: purge.id, workspaceId: purge.workspace_id, retryInMs: waitMs, err: error instanceof Error ? error.message : String(error) }, `removing the ${this.deps.kind} of a purge failed; it is tried again`);
    }
  }

  /**
   * Whether the read models have passed the purge and every event before the log's head now;
   * false when the worker stopped first (the purge is left for the next start). The head, not
   * only the purge: a projection replayed while Lore runs (a new version catching up) records
   * purges of long ago that its own later events take back (a content attempt's first chunks),
   * and what they would remove is current.
   */
  private async readModelsPassed(purge: P): Promise<boolean> {
    const recorded = positionFromString(purge.position);
    const head = await this.deps.events.headPosition();
    const position = comparePositions(head, recorded) > 0 ? head : recorded;
    return new Promise<boolean>((resolve, reject) => {
      const abandon = (): void => resolve(false);
      this.onStop.add(abandon);
      this.deps.readModelsPassed(position, recorded, purge).then(
        () => resolve(true),
        (error: unknown) => reject(error),
      ).finally(() => this.onStop.delete(abandon));
    });
  }

  /**
   * Until a lane is free for the purge (LANES, twice that for one someone waits for), which it
   * then holds; false when the worker stopped first.
   */
  private async lane(purge: P): Promise<boolean> {
    for (;;) {
      if (this.stopped) return false;
      if (this.removing.size < (this.waited.has(purge.id) ? 2 * LANES : LANES)) {
        this.removing.add(purge.id);
        purgesRunning.set({ kind: this.deps.kind }, this.removing.size);
        return true;
      }
      await this.nextEnd(POLL_MS);
    }
  }

  /** False when the worker stopped first (the purge is left for the next start). */
  private async remove(purge: P): Promise<boolean> {
    for (let size = FIRST_PAGE; ; ) {
      if (this.stopped) return false;
      const limit = size;
      const { value: removed, tookMs } = await this.inTurn(() => this.deps.removePage(purge, limit));
      if (removed === 0) break;
      size = nextPageSize(limit, removed, tookMs);
    }
    // In turn like a page: the stores' forgetting (a WAL checkpoint, synchronous) after each of a
    // collection's 10,000 content purges would otherwise hold the event loop unpaced.
    const afterPages = this.deps.afterPages;
    if (afterPages !== undefined) await this.inTurn(() => afterPages(purge));
    return true;
  }

  /** Runs one page once the pages asked for before it have run, and holds the next one back for as long as it took of the event loop. */
  private async inTurn<T>(page: () => Promise<T>): Promise<{ readonly value: T; readonly tookMs: number }> {
    const earlier = PurgeWorker.pages;
    let release!: () => void;
    PurgeWorker.pages = new Promise((resolve) => (release = resolve));
    await earlier;
    // What the page took of the event loop, not of the clock: a page of a remote store (Mongo,
    // Qdrant) mostly waits for its answers, which holds nobody back, and sized or paused by the
    // clock it would shrink to the smallest and crawl.
    const before = performance.eventLoopUtilization();
    // A page that waits on its store (a remote index slow to answer) holds the others back no longer than this.
    const overdue = setTimeout(release, PAGE_TURN_MAX_MS);
    let tookMs = 0;
    try {
      const value = await page();
      tookMs = performance.eventLoopUtilization(before).active;
      return { value, tookMs };
    } finally {
      clearTimeout(overdue);
      setTimeout(release, Math.max(1, tookMs || performance.eventLoopUtilization(before).active));
    }
  }
}
