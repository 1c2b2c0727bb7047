import type { LoreHttp } from '../core/http';
import { LoreApiError, retryAfterSeconds } from '../core/errors';
import { backoff } from '../core/retry';
import { parseSse } from '../core/sse';
import type { ReplyOf } from '../core/types';

/** An integration event as `/asyncapi.json` describes it: `type`, `event_id`, `occurred_at`, `workspace_id` and the type's own ids. */
export type IntegrationEvent = ReplyOf<'stream_events_api_v1_events_get'>;

/** What the event stream yields: an event with its opaque id (what to resume after), or a notice that events expired before the client came back. */
export type StreamedEvent =
  | { readonly kind: 'event'; readonly id: string; readonly event: IntegrationEvent }
  | { readonly kind: 'gap'; readonly after: string; readonly message: string };

export interface EventStreamOptions {
  /** Contexts to receive (`memory`, `conversation`…); an event matching these or `types` is sent. */
  readonly contexts?: readonly string[];
  /** Event types (`memory.created`…). */
  readonly types?: readonly string[];
  /** Resume after this id (one the stream sent before; `"0"`: from the oldest kept). Absent: new events only. */
  readonly after?: string;
  /** Ends the stream (the iterator returns). Breaking out of `for await` ends it too. */
  readonly signal?: AbortSignal;
  /**
   * Called each time a connection is open (the first and every reconnection). A caller that
   * also reads current state (a list) re-reads it then: without `after`, what changed before
   * the stream was open is not sent.
   */
  readonly onOpen?: () => void;
}

/** The workspace's integration events as a resumable stream (`GET /api/v1/events`, Server-Sent Events). */
export class Events {
  constructor(private readonly http: LoreHttp) {}

  /**
   * Every event from now (or after `after`), for as long as the caller iterates. When the
   * connection drops (network, a gateway restart), it reconnects with `Last-Event-ID` set to
   * the last event received, waiting a growing, jittered delay (or what a 429/503's
   * `Retry-After` says), so no event is missed or repeated. Other errors (401, 403, 422) end
   * the iteration with a {@link LoreApiError}.
   */
  async *stream(options: EventStreamOptions = {}): AsyncGenerator<StreamedEvent, void, undefined> {
    const query = new URLSearchParams();
    if (options.contexts?.length) query.set('contexts', options.contexts.join(','));
    if (options.types?.length) query.set('types', options.types.join(','));
    const url = `${this.http.baseUrl}/api/v1/events${query.size > 0 ? `?${query.toString()}` : ''}`;
    // One controller closes the current connection whether the caller aborts or stops iterating.
    const stop = new AbortController();
    const onAbort = (): void => stop.abort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    let lastId = options.after;
    let failures = 0;
    try {
      while (!stop.signal.aborted) {
        let waitMs: number | undefined;
        try {
          const headers: Record<string, string> = { ...this.http.headers, accept: 'text/event-stream' };
          // Last-Event-ID wins over ?after= on the server; one header serves the first connection and every resumption.
          if (lastId !== undefined) headers['last-event-id'] = lastId;
          const response = await this.http.fetchOnce(new Request(url, { headers, signal: stop.signal }));
          if (response.status === 429 || response.status === 503) {
            waitMs = (retryAfterSeconds(response.headers) ?? 0) * 1000 || undefined;
            await response.body?.cancel();
          } else if (!response.ok || response.body === null) {
            throw await LoreApiError.fromResponse(response);
          } else {
            options.onOpen?.();
            for await (const message of parseSse(response.body)) {
              failures = 0;
              if (message.event === 'gap') {
                const gap = JSON.parse(message.data) as { after: string; message: string };
                yield { kind: 'gap', after: gap.after, message: gap.message };
              } else if (message.id !== undefined) {
                lastId = message.id;
                yield { kind: 'event', id: message.id, event: JSON.parse(message.data) as IntegrationEvent };
              }
            }
          }
        } catch (error) {
          if (error instanceof LoreApiError) throw error;
          if (stop.signal.aborted) return;
          // Otherwise the connection dropped: reconnect below.
        }
        if (stop.signal.aborted) return;
        await sleep(waitMs ?? backoff(this.http.retryPolicy, Math.min(failures++, 8)), stop.signal);
      }
    } finally {
      options.signal?.removeEventListener('abort', onAbort);
      stop.abort();
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
