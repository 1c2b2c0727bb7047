import type Database from 'better-sqlite3';
import { AppError, START } from '@lore/platform/kernel';
import type { Position } from '@lore/platform/kernel';
import { GENESIS_HASH, StreamDeletedError, WrongExpectedRevisionError, chainEvents } from '@lore/platform/event-store/port';
import type { AppendResult, EventToAppend, ExpectedRevision } from '@lore/platform/event-store/port';
import type { StreamRow } from './sqlite-schema';

export interface AppendRequest {
  readonly streamId: string;
  readonly events: readonly EventToAppend[];
  readonly expected: ExpectedRevision;
}

/** `appended`: the events this append stored (0 for a retried append, whose events were stored before, or an empty one). */
export type AppendOutcome = { readonly ok: true; readonly result: AppendResult; readonly appended: number } | { readonly ok: false; readonly error: unknown };

type Applied = { readonly result: AppendResult; readonly appended: number };

interface ExistingEventRow {
  readonly stream_id: string;
  readonly revision: bigint;
  readonly position: bigint;
}

const seqPosition = (seq: bigint): Position => ({ commit: seq, prepare: seq });

/**
 * Writes a batch of appends in one SQLite transaction (group commit): one fsync for the
 * whole batch instead of one per append. Each append runs in its own savepoint and is
 * checked against the stream's revision as left by the appends before it in the batch, so
 * the outcome is exactly that of running them one after another; a failing append rolls
 * back only its savepoint.
 */
export class SqliteAppendWriter {
  private readonly getStream;
  private readonly findEvent;
  private readonly lastOfStream;
  private readonly insertEvent;
  private readonly upsertStream;
  private readonly writeBatch: Database.Transaction<(batch: readonly AppendRequest[], recordedAt: string) => AppendOutcome[]>;
  private readonly appendOne: Database.Transaction<(request: AppendRequest, recordedAt: string) => Applied>;

  constructor(db: Database.Database) {
    this.getStream = db.prepare<[string], StreamRow>('SELECT revision, deleted, last_hash FROM streams WHERE stream_id = ?').safeIntegers(true);
    this.findEvent = db.prepare<[string], ExistingEventRow>('SELECT stream_id, revision, position FROM events WHERE id = ?').safeIntegers(true);
    this.lastOfStream = db
      .prepare<[string], { position: bigint }>('SELECT position FROM events WHERE stream_id = ? ORDER BY revision DESC LIMIT 1')
      .safeIntegers(true);
    this.insertEvent = db
      .prepare<[string, string, number, string, string, string, string]>(
        'INSERT INTO events (id, stream_id, revision, type, data, metadata, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .safeIntegers(true);
    // The head hash lives beside the revision, so chaining an append reads one row (O(1)) and
    // is checked and written under the same write lock as the expected-revision check.
    this.upsertStream = db.prepare<[string, number, string]>(
      'INSERT INTO streams (stream_id, revision, deleted, last_hash) VALUES (?, ?, 0, ?) ON CONFLICT (stream_id) DO UPDATE SET revision = excluded.revision, last_hash = excluded.last_hash',
    );
    // Called inside writeBatch, better-sqlite3 turns this nested transaction into a savepoint.
    this.appendOne = db.transaction((request: AppendRequest, recordedAt: string) => this.apply(request, recordedAt));
    this.writeBatch = db.transaction((batch: readonly AppendRequest[], recordedAt: string) =>
      batch.map((request): AppendOutcome => {
        try {
          return { ok: true, ...this.appendOne(request, recordedAt) };
        } catch (error) {
          return { ok: false, error };
        }
      }),
    );
  }

  /**
   * Commits the batch durably and returns one outcome per request, in order. Throws only when
   * the transaction as a whole fails (then nothing of the batch was written).
   */
  write(batch: readonly AppendRequest[], recordedAt: string): AppendOutcome[] {
    // IMMEDIATE takes the write lock up front: a deferred transaction that later upgrades
    // can fail with SQLITE_BUSY without waiting when another process wrote in between.
    return this.writeBatch.immediate(batch, recordedAt);
  }

  private apply({ streamId, events, expected }: AppendRequest, recordedAt: string): Applied {
    // The tombstone first: a retry of an append to a stream being deleted finds some of its
    // events gone and some not, which would read as ids reused (a conflict), not a deletion.
    const stream = this.getStream.get(streamId);
    if (stream !== undefined && stream.deleted !== 0n) throw new StreamDeletedError(streamId);
    const retried = this.alreadyStored(streamId, events);
    if (retried) return { result: retried, appended: 0 };

    const actual: number | 'no_stream' = stream === undefined ? 'no_stream' : Number(stream.revision);
    if (!matches(expected, actual)) throw new WrongExpectedRevisionError(streamId, expected, actual);

    let revision = actual === 'no_stream' ? -1 : actual;
    if (events.length === 0) {
      const last = this.lastOfStream.get(streamId);
      return { result: { revision, position: last === undefined ? START : seqPosition(last.position) }, appended: 0 };
    }
    // A stream whose last event predates the chain (last_hash NULL) starts its chain at genesis.
    const chained = chainEvents(streamId, revision + 1, stream?.last_hash ?? GENESIS_HASH, events);
    let seq = -1n;
    for (const event of chained.events) {
      revision += 1;
      const info = this.insertEvent.run(
        event.id,
        streamId,
        revision,
        event.type,
        // JSON.stringify(undefined) yields undefined; store it as null so the column stays valid JSON.
        JSON.stringify(event.data) ?? 'null',
        JSON.stringify(event.metadata),
        recordedAt,
      );
      seq = BigInt(info.lastInsertRowid);
    }
    this.upsertStream.run(streamId, revision, chained.headHash);
    return { result: { revision, position: seqPosition(seq) }, appended: chained.events.length };
  }

  /**
   * A retried append (same event ids, e.g. after a lost response) succeeds without storing
   * the events twice, as EventStoreDB does. Ids reused for different events are a conflict.
   */
  private alreadyStored(streamId: string, events: readonly EventToAppend[]): AppendResult | undefined {
    const found = events.map((e) => this.findEvent.get(e.id));
    if (found.every((row) => row === undefined)) return undefined;
    const first = found[0];
    const consistent =
      first !== undefined &&
      found.every((row, i) => row !== undefined && row.stream_id === streamId && row.revision === first.revision + BigInt(i));
    const last = found[found.length - 1];
    if (!consistent || last === undefined) {
      throw new AppError('conflict', `event ids of the append to ${streamId} are already used by other events`);
    }
    return { revision: Number(last.revision), position: seqPosition(last.position) };
  }
}

function matches(expected: ExpectedRevision, actual: number | 'no_stream'): boolean {
  if (expected === 'any') return true;
  return expected === actual;
}
