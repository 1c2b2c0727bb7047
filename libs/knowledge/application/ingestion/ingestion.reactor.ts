import type { Position } from '@lore/platform/kernel';
import type { Reactor } from '@lore/platform/projections';
import { CONTENT_STREAM_PREFIX, upcastContentEvent } from '@lore/knowledge/domain';
import type { IngestionWorkers } from './ingestion-workers';

/**
 * The ingestion pipeline's trigger: hands new, reprocessed and retried contents to the
 * workers and moves on (a reactor never waits for the work). The workers' sweep covers what
 * this misses across a crash: the read model still says `new` or `processing`. The event goes
 * with the content: the attempt's events are caused by it.
 */
export function ingestionReactor(workers: IngestionWorkers, projected: (position: Position) => Promise<void>): Reactor {
  return {
    name: 'knowledge.ingestion.v1',
    streamPrefixes: [CONTENT_STREAM_PREFIX],
    async react(events) {
      // Workers start from the read models (the content, its collection's settings).
      const last = events[events.length - 1];
      if (last !== undefined) await projected(last.position);
      for (const recorded of events) {
        const event = upcastContentEvent(recorded);
        switch (event.type) {
          case 'knowledge.ContentAdded':
          case 'knowledge.ContentTextAppended': // the last part makes a long text processable
          case 'knowledge.ContentReprocessRequested':
            workers.enqueue(event.data.contentId, recorded);
            break;
          case 'knowledge.ContentProcessingFailed':
            if (event.data.retryAt !== null) workers.scheduleAt(event.data.contentId, event.data.retryAt, recorded);
            break;
          default:
            break;
        }
      }
    },
  };
}
