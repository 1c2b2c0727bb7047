import type Database from 'better-sqlite3';
import { openPrivateDatabase } from '@lore/platform/sqlite';
import { AppError, START, systemClock } from '@lore/platform/kernel';
import { storeCommitCounter } from '@lore/platform/telemetry';
import type { Clock, Position, RecordedEvent } from '@lore/platform/kernel';
import type {
  AppendResult,
  EventBatchHandler,
  EventStore,
  EventSubscription,
  EventToAppend,
  ExpectedRevision,
  CountAfterOptions,
  ReadAllOptions,
  SubscribeOptions,
} from '@lore/platform/event-store/port';
import { SqliteAppendWriter } from './sqlite-append-writer';
import type { AppendOutcome, AppendRequest } from './sqlite-append-writer';
import { ThreadedAppendWriter } from './append-writer-thread';
import { WAL_PURGE_ATTEMPTS, WAL_PURGE_RETRY_MS, deletionUnderWay, runDeletionStep, streamsBeingDeleted, walNotPurged } from './sqlite-stream-deletion';
import type { DeletionStep } from './append-writer.protocol';
import { EVENT_COLUMNS, configureConnection, createSchema, prefixCondition, prefixParams, toRecordedEvent } from './sqlite-schema';
import type { EventRow } from './sqlite-schema';
import { SqliteSubscription } from './sqlite-subscription';
import { OtherCommitsWatch } from './other-commits-watch';
import type { LogPage } from './sqlite-subscription';

export interface SqliteEventStoreOptions {
  /** Database file, or ':memory:'. */
  readonly path: string;
  /** How often the store looks for commits made by other processes, while it has live subscriptions. Default 200 ms. */
  readonly pollIntervalMs?: number;
  /** Events per catch-up page handed to a subscription handler. Default 500. */
  readonly pageSize?: number;
  readonly clock?: Clock;
  /**
   * Commit on a thread of its own (append-writer.worker.ts), not on the caller's: a commit's
   * SQLite work and fsync then block the writer thread only, while reads stay on this
   * connection. Needs a file (not ':memory:'). Standalone turns it on; default off.
   */
  readonly writerThread?: boolean;
}

/** A subscription's streams, and what its page reads key and filter on: computed once per subscription. */
interface PageSelection {
  readonly key: string;
  readonly condition: string;
  readonly params: readonly (number | string)[];
  /** Its page statement by page size (one size per subscription in practice). */
  readonly statements: Map<number, Database.Statement<unknown[], EventRow>>;
}

/** Longest pause between two pages of a stream's deletion, ms (see deleteStream). */
const DELETE_PAGE_PAUSE_MAX_MS = 100;

const STREAM_SELECT = `SELECT ${EVENT_COLUMNS} FROM events WHERE stream_id = ? AND revision >= ? ORDER BY revision`;
const PAGE_SELECT = `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? AND position <= ?`;

interface PendingAppend extends AppendRequest {
  readonly resolve: (result: AppendResult) => void;
  readonly reject: (error: unknown) => void;
}

/** Opens (creating if needed) the event store in a SQLite file. */
export function openSqliteEventStore(options: SqliteEventStoreOptions): SqliteEventStore {
  return new SqliteEventStore(options);
}

/**
 * The embedded event store: an append-only SQLite table with a global autoincrement
 * position, per-stream optimistic concurrency and catch-up subscriptions. One connection
 * writes (this one, or the store's own on the writer thread) and SQLite allows one writer per
 * file anyway; readers never observe a half-written batch (better-sqlite3 is synchronous, and
 * WAL gives a reader on another connection the last commit).
 */
export class SqliteEventStore implements EventStore {
  private readonly db: Database.Database;
  /** Writes on this thread (no `writerThread`) or on the writer thread once it has the file open. */
  private readonly writer: SqliteAppendWriter | ThreadedAppendWriter;
  /** The batch on the writer thread: one at a time, so appends keep their order; the next gathers meanwhile. */
  private inFlight: Promise<void> | null = null;
  private readonly countCommit = storeCommitCounter('event-store');
  private readonly clock: Clock;
  private readonly pollIntervalMs: number;
  private readonly pageSize: number;
  private readonly subscriptions = new Set<SqliteSubscription>();
  /** Commits by other processes, looked for while any subscription is open: they wake every subscription. */
  private readonly otherCommits: OtherCommitsWatch;
  private pending: PendingAppend[] = [];
  /**
   * Streams read as deleted while their pages go: being deleted by this store, or tombstoned
   * with events left (a deletion cut short, which its erasure runs again).
   */
  private readonly readAsDeleted: Set<string>;
  private flushScheduled = false;
  private closing = false;
  /**
   * The last page read, keyed by what determines it: the processors of a context read the same
   * streams from the same position after each commit, and share one read and one parse of it
   * (events are never changed in place; deleteStream, the one change to stored events, drops it).
   */
  private lastPage: { readonly after: bigint; readonly head: bigint; readonly limit: number; readonly selection: string; readonly page: LogPage } | null = null;
  /** Prepared once per SQL text: preparing is far costlier than running a cached statement. */
  private readonly statements = new Map<string, Database.Statement<unknown[], unknown>>();

  constructor(options: SqliteEventStoreOptions) {
    this.db = openPrivateDatabase(options.path, 'event-store');
    configureConnection(this.db);
    createSchema(this.db);
    this.readAsDeleted = new Set(streamsBeingDeleted(this.db));
    if (options.writerThread === true) {
      if (options.path === ':memory:' || options.path === '') throw new Error('a writer thread needs an event store file, not an in-memory database');
      this.writer = new ThreadedAppendWriter(options.path);
    } else this.writer = new SqliteAppendWriter(this.db);
    this.clock = options.clock ?? systemClock;
    this.pollIntervalMs = options.pollIntervalMs ?? 200;
    this.pageSize = options.pageSize ?? 500;
    this.otherCommits = new OtherCommitsWatch(() => this.head(), this.pollIntervalMs, () => {
      for (const subscription of this.subscriptions) subscription.wake();
    });
  }

  append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    if (this.closing) return Promise.reject(closedError());
    return new Promise<AppendResult>((resolve, reject) => {
      this.pending.push({ streamId, events, expected, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        // Group commit: every append issued in this turn of the event loop joins one transaction.
        setImmediate(() => this.flush());
      }
    });
  }

  readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    return this.guard(() => {
      if (this.readAsDeleted.size > 0 && this.readAsDeleted.has(streamId)) return [];
      return this.upTo(STREAM_SELECT, [streamId, options.fromRevision ?? 0], options.maxCount).map(toRecordedEvent);
    });
  }

  readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    return this.guard(() => {
      const prefixes = options.streamPrefixes ?? [];
      const sql = `SELECT ${EVENT_COLUMNS} FROM events WHERE position > ?${prefixCondition(prefixes.length)} ORDER BY position`;
      return this.upTo(sql, [afterSeq(options.after), ...prefixParams(prefixes)], options.maxCount).map(toRecordedEvent);
    });
  }

  /** A range count over positions reading only stream ids: no event's data is read or decoded. */
  countAfter(options: CountAfterOptions): Promise<number> {
    return this.guard(() => {
      const prefixes = options.streamPrefixes ?? [];
      const row = this.statement<{ n: bigint }>(
        `SELECT COUNT(*) AS n FROM (SELECT 1 FROM events WHERE position > ?${prefixCondition(prefixes.length)} LIMIT ?)`,
      ).get(afterSeq(options.after), ...prefixParams(prefixes), Math.max(0, Math.floor(options.cap)));
      return Number(row?.n ?? 0n);
    });
  }

  subscribeToAll(options: SubscribeOptions, handler: EventBatchHandler, onError?: (error: unknown) => void): EventSubscription {
    if (this.closing) throw closedError();
    const prefixes = options.streamPrefixes ?? [];
    // Built once for the subscription, not for each of its page reads (a new string to hash each time).
    const selection: PageSelection = { key: prefixes.join('\u0000'), condition: prefixCondition(prefixes.length), params: prefixParams(prefixes), statements: new Map() };
    // Before the subscription exists (its first read, a turn later, covers what came before), so
    // a failing read leaves nothing behind.
    this.otherCommits.start();
    const subscription = new SqliteSubscription(
      { readPage: (after, limit) => this.readPage(after, limit, selection) },
      afterSeq(options.after),
      handler,
      onError ?? reportUnhandled,
      { pageSize: this.pageSize },
      (stopped) => {
        this.subscriptions.delete(stopped);
        if (this.subscriptions.size === 0) this.otherCommits.stop();
      },
      prefixes,
    );
    this.subscriptions.add(subscription);
    return subscription;
  }

  /**
   * A tombstone, then the events a page at a time, then the WAL purge (sqlite-stream-deletion.ts):
   * each step is a transaction of its own, and other streams' appends commit between them.
   */
  async deleteStream(streamId: string): Promise<void> {
    if (this.closing) throw closedError();
    // Appends queued before the delete must land first, so they are deleted with the stream.
    await this.drain();
    this.readAsDeleted.add(streamId);
    try {
      await this.deletionStep({ op: 'tombstone', streamId, deletedAt: this.clock.now().toISOString() });
      for (;;) {
        const started = performance.now();
        if (await this.deletionStep({ op: 'delete-page', streamId })) break;
        // A pause as long as the page took (the writer's or this thread's time): every other
        // stream's appends have the writer at least half the time while a long stream goes.
        await new Promise((resolve) => setTimeout(resolve, Math.min(DELETE_PAGE_PAUSE_MAX_MS, performance.now() - started)));
        // Cut short by a close: the erasure runs it again at the next start (the stream reads as deleted meanwhile).
        if (this.closing) throw closedError();
      }
    } catch (error) {
      // A step failed (the write lock held past the busy timeout, the writer thread gone): what is
      // left of a tombstoned stream, its start gone, reads as deleted until the deletion runs again.
      // (A closing store's connection may be gone already: nothing reads through it any more.)
      if (!this.closing && !deletionUnderWay(this.db, streamId)) this.readAsDeleted.delete(streamId);
      throw error;
    } finally {
      // Dropped after the delete: a page read while it ran may hold the deleted events.
      this.lastPage = null;
    }
    // No event is left (by this deletion or one beside it): it reads empty as it is.
    this.readAsDeleted.delete(streamId);
    await this.purgeWal();
  }

  headPosition(): Promise<Position> {
    return this.guard(() => {
      const head = this.head();
      return head === -1n ? START : { commit: head, prepare: head };
    });
  }

  async close(): Promise<void> {
    if (this.closing) return;
    this.closing = true;
    await this.drain();
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.otherCommits.stop();
    if (this.writer instanceof ThreadedAppendWriter) await this.writer.close();
    this.db.close();
  }

  /** Returns once every append queued so far is written (or has failed). */
  private async drain(): Promise<void> {
    this.flush();
    while (this.inFlight !== null) {
      await this.inFlight;
      this.flush();
    }
  }

  /** Writes every queued append in one transaction and settles each append's promise. */
  private flush(): void {
    this.flushScheduled = false;
    // A batch on the writer thread flushes again when it returns.
    if (this.inFlight !== null) return;
    const batch = this.pending;
    this.pending = [];
    if (batch.length === 0) return;
    const recordedAt = this.clock.now().toISOString();
    if (this.writer instanceof SqliteAppendWriter) {
      let outcomes;
      try {
        outcomes = this.writer.write(batch, recordedAt);
      } catch (error) {
        for (const append of batch) append.reject(error);
        return;
      }
      this.settle(batch, outcomes);
      return;
    }
    this.inFlight = this.writer
      .append(batch, recordedAt)
      .then(
        (outcomes) => {
          // The writer thread's commits are counted here, where /metrics reads them.
          this.countCommit();
          this.settle(batch, outcomes);
        },
        (error: unknown) => {
          for (const append of batch) append.reject(error);
        },
      )
      .finally(() => {
        this.inFlight = null;
        if (this.pending.length > 0 && !this.flushScheduled) this.flush();
      });
  }

  private settle(batch: readonly PendingAppend[], outcomes: readonly AppendOutcome[]): void {
    const written: string[] = [];
    batch.forEach((append, i) => {
      const outcome = outcomes[i];
      if (outcome === undefined) append.reject(new AppError('internal', 'append batch lost an outcome'));
      else if (outcome.ok) {
        written.push(append.streamId);
        this.otherCommits.noteOwnCommit(outcome.result.position.commit, outcome.appended);
        append.resolve(outcome.result);
      } else append.reject(outcome.error);
    });
    if (written.length > 0) for (const s of this.subscriptions) s.wake(written);
  }

  /** Purges the WAL after a delete (see truncateWal), retrying while a reader holds old frames: the writer waits for nobody meanwhile. */
  private async purgeWal(): Promise<void> {
    for (let attempt = 0; attempt < WAL_PURGE_ATTEMPTS; attempt++) {
      if ((await this.deletionStep({ op: 'truncate-wal' })) === true) return;
      await new Promise((resolve) => setTimeout(resolve, WAL_PURGE_RETRY_MS));
    }
    throw walNotPurged();
  }

  /** One step of a deletion on the writing connection: this one, or the writer thread's after what was queued there. */
  private async deletionStep(step: DeletionStep): Promise<unknown> {
    if (this.writer instanceof SqliteAppendWriter) return runDeletionStep(this.db, step);
    const done = await this.writer.deletionStep(step);
    if (step.op !== 'truncate-wal') this.countCommit();
    return done;
  }

  /** One page for a subscription, bounded by the head read in the same snapshot. */
  private readPage(after: bigint, limit: number, selection: PageSelection): LogPage {
    const head = this.head();
    const last = this.lastPage;
    if (last !== null && last.after === after && last.head === head && last.limit === limit && last.selection === selection.key) return last.page;
    const page = this.readPageAt(after, head, limit, selection);
    this.lastPage = { after, head, limit, selection: selection.key, page };
    return page;
  }

  private readPageAt(after: bigint, head: bigint, limit: number, selection: PageSelection): LogPage {
    // A subscription's page size is fixed: one statement per subscription at most.
    let statement = selection.statements.get(limit);
    if (statement === undefined) {
      statement = this.statement<EventRow>(`${PAGE_SELECT}${selection.condition} ORDER BY position${literalLimit(limit)}`);
      selection.statements.set(limit, statement);
    }
    const rows = statement.all(after, head, ...selection.params);
    const last = rows[rows.length - 1];
    if (rows.length === limit && last !== undefined) return { events: rows.map(toRecordedEvent), scannedTo: last.position, more: true };
    // Everything up to head has been examined; later commits get higher positions.
    return { events: rows.map(toRecordedEvent), scannedTo: head > after ? head : after, more: false };
  }

  /** Sequence number of the last event, -1 when the log is empty. */
  private head(): bigint {
    const row = this.statement<{ head: bigint | null }>('SELECT max(position) AS head FROM events').get();
    return row?.head ?? -1n;
  }

  /**
   * The rows of `sql`, at most `maxCount` of them. No LIMIT clause without a count (every
   * command's read of its stream): see literalLimit; a caller's count stays bound.
   */
  private upTo(sql: string, params: readonly unknown[], maxCount: number | undefined): EventRow[] {
    return maxCount === undefined ? this.statement<EventRow>(sql).all(...params) : this.statement<EventRow>(`${sql} LIMIT ?`).all(...params, maxCount);
  }

  private statement<Row>(sql: string): Database.Statement<unknown[], Row> {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      // safeIntegers: positions are 64-bit and must not be rounded through a JS number.
      statement = this.db.prepare<unknown[], unknown>(sql).safeIntegers(true);
      this.statements.set(sql, statement);
    }
    return statement as Database.Statement<unknown[], Row>;
  }

  private guard<T>(read: () => T): Promise<T> {
    if (this.closing) return Promise.reject(closedError());
    try {
      return Promise.resolve(read());
    } catch (error) {
      return Promise.reject(error);
    }
  }
}

/**
 * ` LIMIT n` written into the SQL. A `LIMIT ?` bound at run time makes a statement several times
 * slower to run than the same one with the limit written in or without one (better-sqlite3 on
 * the events table: an empty read of a stream's tail ~25 µs against ~8 µs; a page of 10 events
 * ~90 µs against ~45 µs). So reads without a count have no LIMIT clause and page reads write their
 * size in; a caller's count, from an open-ended set of values, stays bound (a statement per value would pile up).
 */
function literalLimit(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError(`a limit must be a positive integer, got ${limit}`);
  return ` LIMIT ${limit}`;
}

/** SQLite positions carry the sequence number in both fields; START (-1) means "from the beginning". */
function afterSeq(after: Position | undefined): bigint {
  return after === undefined ? -1n : after.commit;
}

function closedError(): AppError {
  return new AppError('unavailable', 'event store is closed');
}

/** A subscription failure must never vanish silently when the caller gave no onError. */
function reportUnhandled(error: unknown): void {
  process.emitWarning(`event store subscription stopped: ${error instanceof Error ? error.message : String(error)}`);
}
