import { BACKWARDS, END, StreamDeletedError as EsdbStreamDeletedError, StreamNotFoundError } from '@eventstore/db-client';
import type { EventStoreDBClient } from '@eventstore/db-client';
import type { RecordedEvent } from '@lore/platform/kernel';

const MAX_REMEMBERED = 10_000;

/**
 * EventStoreDB keeps a tombstoned stream's events in `$all` until a scavenge runs, but the
 * port promises they are gone from `$all` at once. So every `$all` read asks, per distinct
 * stream in the page, whether the stream was deleted. A deletion is permanent, so positive
 * answers are remembered (bounded); negative ones are not, since a delete can come any time.
 */
export class DeletedStreams {
  private readonly known = new Set<string>();

  constructor(private readonly client: EventStoreDBClient) {}

  remember(streamId: string): void {
    this.known.delete(streamId);
    this.known.add(streamId);
    if (this.known.size > MAX_REMEMBERED) {
      const oldest = this.known.values().next();
      if (oldest.done !== true) this.known.delete(oldest.value);
    }
  }

  async isDeleted(streamId: string): Promise<boolean> {
    if (this.known.has(streamId)) return true;
    try {
      // Reading the last event is the cheapest call that reports a tombstone.
      for await (const resolved of this.client.readStream(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 })) {
        void resolved;
        break;
      }
      return false;
    } catch (error) {
      if (error instanceof EsdbStreamDeletedError) {
        this.remember(streamId);
        return true;
      }
      if (error instanceof StreamNotFoundError) return false;
      throw error;
    }
  }

  async withoutDeleted(events: readonly RecordedEvent[]): Promise<RecordedEvent[]> {
    const streams = [...new Set(events.map((e) => e.streamId))];
    const verdicts = await Promise.all(streams.map(async (id) => [id, await this.isDeleted(id)] as const));
    const deleted = new Set(verdicts.filter(([, gone]) => gone).map(([id]) => id));
    return deleted.size === 0 ? [...events] : events.filter((e) => !deleted.has(e.streamId));
  }
}
