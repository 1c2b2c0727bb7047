import { ANY, BACKWARDS, END, EventStoreDBClient, FORWARDS, StreamNotFoundError, StreamDeletedError as EsdbStreamDeletedError } from '@eventstore/db-client';
import type { ReadPosition, ReadStreamOptions } from '@eventstore/db-client';
import { START, comparePositions } from '@lore/platform/kernel';
import type { Position, RecordedEvent } from '@lore/platform/kernel';
import { WrongExpectedRevisionError, chainEvents } from '@lore/platform/event-store/port';
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
import { DeletedStreams } from './esdb-deleted-streams';
import { EsdbChainHeads } from './esdb-chain-heads';
import { isSystemEvent, mapError, matchesPrefixes, toEventData, toExpectedRevision, toReadPosition, toRecordedEvent } from './esdb-mapping';
import { EsdbSubscription } from './esdb-subscription';

export interface EsdbEventStoreOptions {
  /** e.g. `esdb://admin:changeit@localhost:2113?tls=false`; reading `$all` needs a user allowed to. */
  readonly connectionString: string;
}

/** Events fetched per `$all` page when filtering on the client side. */
const PAGE = 500;
/** How many events of `$all` one `countAfter` reads at most (see there). */
const COUNT_SCAN_LIMIT = 10_000;
/** Attempts of an `any` append whose resolved revision another writer keeps overtaking. */
const ANY_ATTEMPTS = 5;

export function openEsdbEventStore(options: EsdbEventStoreOptions): EsdbEventStore {
  return EsdbEventStore.connect(options.connectionString);
}

/**
 * The production event store on EventStoreDB / KurrentDB through the official client.
 * Streams, expected revisions, `$all` positions and catch-up subscriptions are the engine's
 * own; this adapter only translates names, errors and the batch subscription contract, and
 * hides tombstoned streams from `$all` until the server scavenges them.
 */
export class EsdbEventStore implements EventStore {
  private readonly deleted: DeletedStreams;
  private readonly heads: EsdbChainHeads;
  private readonly subscriptions = new Set<EsdbSubscription>();

  constructor(private readonly client: EventStoreDBClient) {
    this.deleted = new DeletedStreams(client);
    this.heads = new EsdbChainHeads(client);
  }

  /** The client connects lazily: this does no I/O, the first call does. */
  static connect(connectionString: string): EsdbEventStore {
    return new EsdbEventStore(EventStoreDBClient.connectionString(connectionString));
  }

  async append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    // `any` is resolved to the actual last revision so the chain links to the right event; a
    // writer slipping in between makes that revision stale, so `any` retries rather than fails.
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendChained(streamId, events, expected);
      } catch (error) {
        if (expected !== 'any' || !(error instanceof WrongExpectedRevisionError) || attempt >= ANY_ATTEMPTS) throw error;
      }
    }
  }

  private async appendChained(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult> {
    try {
      const start = await this.heads.start(streamId, expected);
      const chained = chainEvents(streamId, start.firstRevision, start.prevHash, events);
      const result = await this.client.appendToStream(streamId, chained.events.map(toEventData), {
        expectedRevision: toExpectedRevision(start.expected),
      });
      const revision = Number(result.nextExpectedRevision);
      if (events.length === 0) return { revision, position: result.position ?? START };
      this.heads.remember(streamId, revision, chained.headHash);
      // For a multi-event write the server reports the transaction's position, which need not
      // be the last event's; read-your-writes must wait for the last one, so read it back.
      const single = events.length === 1 ? result.position : undefined;
      const position = single ?? (await this.positionOfRevision(streamId, revision, result.position));
      return { revision, position: { commit: position.commit, prepare: position.prepare } };
    } catch (error) {
      throw mapError(error, streamId, expected);
    }
  }

  async readStream(streamId: string, options: { fromRevision?: number; maxCount?: number } = {}): Promise<RecordedEvent[]> {
    const read: ReadStreamOptions = { direction: FORWARDS, fromRevision: BigInt(options.fromRevision ?? 0) };
    if (options.maxCount !== undefined) read.maxCount = options.maxCount;
    const out: RecordedEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, read)) {
        if (resolved.event !== undefined) out.push(toRecordedEvent(resolved.event, resolved.commitPosition));
      }
      return out;
    } catch (error) {
      // The port answers "nothing" for a stream that never existed or was deleted.
      if (error instanceof StreamNotFoundError || error instanceof EsdbStreamDeletedError) return [];
      throw mapError(error, streamId);
    }
  }

  /**
   * Reads `$all` forwards in pages, filtering prefixes and system events on the client: the
   * v6 client exposes server-side filters only on subscriptions. `after` is exclusive while
   * the server's fromPosition is inclusive, hence the position check.
   */
  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const prefixes = options.streamPrefixes ?? [];
    const maxCount = options.maxCount ?? Number.POSITIVE_INFINITY;
    const out: RecordedEvent[] = [];
    let after: Position = options.after ?? START;
    let from: ReadPosition = toReadPosition(options.after);
    for (;;) {
      let seen = 0;
      let lastRaw: Position | undefined;
      const page: RecordedEvent[] = [];
      try {
        for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: PAGE })) {
          seen++;
          const event = resolved.event;
          if (event === undefined) continue;
          lastRaw = event.position;
          if (comparePositions(event.position, after) <= 0) continue;
          if (isSystemEvent(event) || !matchesPrefixes(event.streamId, prefixes)) continue;
          page.push(toRecordedEvent(event));
        }
      } catch (error) {
        throw mapError(error, '$all');
      }
      for (const event of await this.deleted.withoutDeleted(page)) {
        out.push(event);
        if (out.length >= maxCount) return out;
      }
      if (seen < PAGE || lastRaw === undefined) return out;
      after = lastRaw;
      from = lastRaw;
    }
  }

  /**
   * The v6 client has no server-side count: `$all` is paged as in `readAll`, but events are
   * only counted, never mapped (no copy of their data, no metadata decoding), and it stops at
   * `cap`, or after COUNT_SCAN_LIMIT events of `$all` (then the count is a lower bound: a
   * reader of rare streams behind a long log of others costs no more than that). Deleted
   * streams are checked once per stream met.
   */
  async countAfter(options: CountAfterOptions): Promise<number> {
    if (options.cap <= 0) return 0;
    const prefixes = options.streamPrefixes ?? [];
    const deleted = new Map<string, boolean>();
    let after: Position = options.after ?? START;
    let count = 0;
    let scanned = 0;
    let from: ReadPosition = toReadPosition(options.after);
    for (;;) {
      let seen = 0;
      let lastRaw: Position | undefined;
      try {
        for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: from, maxCount: PAGE })) {
          seen++;
          if (++scanned > COUNT_SCAN_LIMIT) return count;
          const event = resolved.event;
          if (event === undefined) continue;
          lastRaw = event.position;
          if (comparePositions(event.position, after) <= 0 || isSystemEvent(event) || !matchesPrefixes(event.streamId, prefixes)) continue;
          let gone = deleted.get(event.streamId);
          if (gone === undefined) deleted.set(event.streamId, (gone = await this.deleted.isDeleted(event.streamId)));
          if (!gone && ++count >= options.cap) return count;
        }
      } catch (error) {
        throw mapError(error, '$all');
      }
      if (seen < PAGE || lastRaw === undefined) return count;
      // The server's fromPosition is inclusive: the next page starts with this last event again.
      after = lastRaw;
      from = lastRaw;
    }
  }

  subscribeToAll(options: SubscribeOptions, handler: EventBatchHandler, onError?: (error: unknown) => void): EventSubscription {
    const subscription = new EsdbSubscription(
      this.client,
      options,
      handler,
      (error) => {
        this.subscriptions.delete(subscription);
        (onError ?? reportUnhandled)(error);
      },
      this.deleted,
    );
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  /** Hard delete: the server writes a tombstone and refuses the stream forever. */
  async deleteStream(streamId: string): Promise<void> {
    try {
      await this.client.tombstoneStream(streamId, { expectedRevision: ANY });
    } catch (error) {
      // Deleting twice is a no-op, as in the port's other adapters.
      if (!(error instanceof EsdbStreamDeletedError)) throw mapError(error, streamId);
    }
    this.deleted.remember(streamId);
  }

  /**
   * The last application event of `$all`. System events (statistics, tombstones) are
   * skipped: no subscriber ever sees them, so a head pointing at one could never be reached.
   */
  async headPosition(): Promise<Position> {
    let from: ReadPosition = END;
    for (;;) {
      let seen = 0;
      let lastRaw: Position | undefined;
      try {
        for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: from, maxCount: PAGE })) {
          seen++;
          const event = resolved.event;
          if (event === undefined) continue;
          lastRaw = event.position;
          if (isSystemEvent(event) || (await this.deleted.isDeleted(event.streamId))) continue;
          return { commit: event.position.commit, prepare: event.position.prepare };
        }
      } catch (error) {
        throw mapError(error, '$all');
      }
      if (seen < PAGE || lastRaw === undefined) return START;
      from = lastRaw;
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.close()));
    this.subscriptions.clear();
    await this.client.dispose();
  }

  /** Position of one event, read from the event itself (older servers also omit it from append results). */
  private async positionOfRevision(streamId: string, revision: number, fallback: Position | undefined): Promise<Position> {
    const [event] = await this.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    if (event !== undefined) return event.position;
    // Deleted right after the append: nobody will read the events, so nothing is to be waited for.
    return fallback ?? START;
  }
}

function reportUnhandled(error: unknown): void {
  process.emitWarning(`event store subscription stopped: ${error instanceof Error ? error.message : String(error)}`);
}
