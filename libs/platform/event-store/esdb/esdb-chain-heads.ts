import { BACKWARDS, END, FORWARDS, StreamNotFoundError } from '@eventstore/db-client';
import type { EventStoreDBClient } from '@eventstore/db-client';
import { GENESIS_HASH, storedHash } from '@lore/platform/event-store/port';
import type { ExpectedRevision } from '@lore/platform/event-store/port';
import { toRecordedEvent } from './esdb-mapping';

const MAX_REMEMBERED = 10_000;

/** Where an append continues a stream's hash chain. */
export interface ChainStart {
  /** The revision to append against: `any` is resolved to the stream's actual last revision. */
  readonly expected: Exclude<ExpectedRevision, 'any'>;
  readonly firstRevision: number;
  readonly prevHash: string;
}

/**
 * Finds the hash an append to EventStoreDB links to: that of the event at the expected
 * revision. The server checks the expected revision on append, so a concurrent writer
 * still conflicts exactly as before; the hash is read from the stream, with the heads this
 * process appended itself remembered (bounded) to spare that read on the common path. An
 * event at a given revision never changes (a tombstoned stream is never written again), so
 * a remembered hash cannot go stale.
 */
export class EsdbChainHeads {
  private readonly known = new Map<string, { readonly revision: number; readonly hash: string }>();

  constructor(private readonly client: EventStoreDBClient) {}

  async start(streamId: string, expected: ExpectedRevision): Promise<ChainStart> {
    if (expected === 'no_stream') return { expected, firstRevision: 0, prevHash: GENESIS_HASH };
    if (expected === 'any') return this.startAtEnd(streamId);
    const remembered = this.known.get(streamId);
    if (remembered?.revision === expected) return { expected, firstRevision: expected + 1, prevHash: remembered.hash };
    const event = await this.readOne(streamId, { direction: FORWARDS, fromRevision: BigInt(expected), maxCount: 1 });
    // No event at that revision: the append is bound to fail its revision check, so any hash will do.
    const prevHash = event?.revision === expected ? (storedHash(event.metadata) ?? GENESIS_HASH) : GENESIS_HASH;
    return { expected, firstRevision: expected + 1, prevHash };
  }

  remember(streamId: string, revision: number, hash: string): void {
    this.known.delete(streamId);
    this.known.set(streamId, { revision, hash });
    if (this.known.size > MAX_REMEMBERED) {
      const oldest = this.known.keys().next();
      if (oldest.done !== true) this.known.delete(oldest.value);
    }
  }

  /** `any`: link to whatever is last now; the append then expects exactly that revision. */
  private async startAtEnd(streamId: string): Promise<ChainStart> {
    const last = await this.readOne(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 });
    if (last === undefined) return { expected: 'no_stream', firstRevision: 0, prevHash: GENESIS_HASH };
    return { expected: last.revision, firstRevision: last.revision + 1, prevHash: storedHash(last.metadata) ?? GENESIS_HASH };
  }

  private async readOne(
    streamId: string,
    options: { direction: typeof FORWARDS | typeof BACKWARDS; fromRevision: bigint | typeof END; maxCount: number },
  ): Promise<{ revision: number; metadata: Record<string, unknown> } | undefined> {
    try {
      for await (const resolved of this.client.readStream(streamId, options)) {
        if (resolved.event !== undefined) {
          const event = toRecordedEvent(resolved.event, resolved.commitPosition);
          return { revision: event.revision, metadata: event.metadata };
        }
      }
      return undefined;
    } catch (error) {
      // A stream that does not exist has no head; a deleted one makes the append itself fail.
      if (error instanceof StreamNotFoundError) return undefined;
      throw error;
    }
  }
}
