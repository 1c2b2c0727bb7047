import { useEffect, useRef, useState } from 'react';
import type { LoreClient } from '@lore/client';

/** A content's status change as knowledge publishes it (`content.*` on the event stream). */
export interface ContentEvent {
  readonly type: string;
  readonly content_id: string;
  readonly collection_id: string;
  readonly status: string;
  readonly chunks: number | null;
}

function isContentEvent(event: object): event is ContentEvent {
  return 'content_id' in event && 'collection_id' in event && 'status' in event;
}

/**
 * Follows the workspace's content events (`GET /api/v1/events?contexts=content`, through the
 * SDK, which reconnects with Last-Event-ID) and hands each one of `collectionId` to `onEvent`;
 * `onOpen` runs whenever a connection opens, for the caller to re-read what may have changed
 * before (a content processed between the page's load and the stream's start).
 * Returns whether the stream is live, or the API's reason it is not (a key without
 * `events:read`), so the screen can say so and poll instead.
 */
export function useContentEvents(lore: LoreClient, collectionId: string, handlers: { onEvent: (event: ContentEvent) => void; onOpen: () => void }): { live: boolean; error: unknown } {
  const [state, setState] = useState<{ live: boolean; error: unknown }>({ live: false, error: null });
  const handler = useRef(handlers);
  handler.current = handlers;
  useEffect(() => {
    const stop = new AbortController();
    setState({ live: false, error: null });
    const onOpen = () => {
      setState({ live: true, error: null });
      handler.current.onOpen();
    };
    void (async () => {
      try {
        for await (const streamed of lore.events.stream({ contexts: ['content'], signal: stop.signal, onOpen })) {
          if (streamed.kind !== 'event') continue;
          const event: object = streamed.event;
          if (isContentEvent(event) && event.collection_id === collectionId) handler.current.onEvent(event);
        }
      } catch (error) {
        if (!stop.signal.aborted) setState({ live: false, error });
      }
    })();
    return () => stop.abort();
  }, [lore, collectionId]);
  return state;
}
