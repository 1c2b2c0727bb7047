import { setImmediate as nextTurn } from 'node:timers/promises';
import type { RecordedEvent } from '@lore/platform/kernel';
import type { EventStore } from './event-store.port';

/** Events read (and parsed) per turn of the event loop by `streamPages`. */
export const STREAM_PAGE_EVENTS = 32;

/**
 * A stream's events from `fromRevision`, a page at a time by revision, with a turn of the event
 * loop between pages: a content's stream holds megabytes of text parts and hundreds of chunk
 * events with their vectors, and reading it in one turn held every other request back (~0.4 s).
 * Revisions only grow, so no event is missed or read twice. A stream deleted between two pages
 * reads empty from then on (the store deleting it reads it as deleted from its tombstone on,
 * though its events go a page at a time): a caller that needs all of it or nothing checks that
 * the stream still holds the last event it read.
 */
export async function* streamPages(store: EventStore, streamId: string, fromRevision = 0): AsyncGenerator<readonly RecordedEvent[]> {
  for (let from = fromRevision; ; ) {
    const page = await store.readStream(streamId, { fromRevision: from, maxCount: STREAM_PAGE_EVENTS });
    const last = page.at(-1);
    if (last !== undefined) yield page;
    if (last === undefined || page.length < STREAM_PAGE_EVENTS) return;
    from = last.revision + 1;
    await nextTurn();
  }
}
