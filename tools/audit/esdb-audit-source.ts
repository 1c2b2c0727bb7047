import type { Position, RecordedEvent } from '@lore/platform/kernel';
import { EsdbEventStore } from '@lore/platform/event-store/esdb';
import type { AuditSource, AuditStream } from './audit-source';

const PAGE = 500;

/**
 * The EventStoreDB every context shares (EVENTSTORE_URL), read through the adapter, which
 * only reads here. Its `$all` has no per-context split, so the audit reports it as one
 * source named `eventstoredb`. Tombstoned streams are hidden by the adapter and cannot be
 * listed once scavenged, so deleted streams are not reported for it; nor is a recorded head
 * (the server keeps none apart from the events), so events cut off a stream's end go unseen.
 */
export class EsdbAuditSource implements AuditSource {
  readonly context = 'eventstoredb';
  private readonly store: EsdbEventStore;

  constructor(url: string) {
    this.store = EsdbEventStore.connect(url);
  }

  async *events(): AsyncIterable<RecordedEvent> {
    let after: Position | undefined;
    for (;;) {
      const page = await this.store.readAll(after === undefined ? { maxCount: PAGE } : { after, maxCount: PAGE });
      yield* page;
      const last = page[page.length - 1];
      if (last === undefined || page.length < PAGE) return;
      after = last.position;
    }
  }

  /** Stream ids come from `$all` (kept in memory: ids only), each stream is then read whole. */
  async *streams(): AsyncIterable<AuditStream> {
    const ids = new Set<string>();
    for await (const event of this.events()) ids.add(event.streamId);
    for (const streamId of [...ids].sort()) yield { streamId, events: await this.store.readStream(streamId) };
  }

  async deletedStreams(): Promise<undefined> {
    return undefined;
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}
