import { once } from 'node:events';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { EventStreamReply, ServerSentEvent } from '@lore/platform/http';

/** How long a client waits before reconnecting after the stream broke (the SSE `retry` field). */
const RETRY_MS = 2_000;

/**
 * Writes an `EventStreamReply` on a hijacked reply: headers that keep proxies from buffering,
 * then each event as the socket drains, a comment line every `heartbeatMs` so idle
 * connections stay open through proxies and dead ones are noticed, until the client leaves or
 * the server closes (`closeAll`, from the server's preClose hook).
 */
export class EventStreams {
  private readonly open = new Set<AbortController>();

  constructor(private readonly heartbeatMs: number) {}

  /** Ends every stream (the server is stopping): clients reconnect elsewhere with their Last-Event-ID. */
  closeAll(): void {
    for (const controller of this.open) controller.abort();
  }

  register(app: FastifyInstance): void {
    app.addHook('preClose', async () => this.closeAll());
  }

  async send(reply: FastifyReply, stream: EventStreamReply, lastEventId: string | undefined): Promise<void> {
    const controller = new AbortController();
    const { signal } = controller;
    const events = stream.open(lastEventId, signal)[Symbol.asyncIterator]();
    const raw = reply.raw;
    reply.hijack();
    this.open.add(controller);
    raw.on('close', () => controller.abort());
    // Headers set before the stream opened (X-Request-Id, RateLimit, RateLimit-Policy).
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) raw.setHeader(name, value);
    raw.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    raw.write(`retry: ${RETRY_MS}\n\n`);
    const heartbeat = setInterval(() => {
      // A client that is not reading does not need more bytes queued for it.
      if (!raw.writableNeedDrain) raw.write(`: heartbeat ${new Date().toISOString()}\n\n`);
    }, this.heartbeatMs);
    let corked = false;
    try {
      while (!signal.aborted) {
        const next = await events.next();
        if (next.done === true || signal.aborted) break;
        // Events that arrive within one turn of the event loop (a catch-up reads a page at
        // once) leave in one socket write instead of one system call each.
        if (!corked) {
          corked = true;
          raw.cork();
          setImmediate(() => {
            corked = false;
            raw.uncork();
          });
        }
        if (!raw.write(format(next.value))) await once(raw, 'drain', { signal }).catch(() => undefined);
      }
    } catch (error) {
      if (!signal.aborted) {
        reply.request.log.error({ err: error }, 'event stream failed');
        raw.write(format({ event: 'error', data: JSON.stringify({ message: 'The event stream failed; reconnect with Last-Event-ID to resume.' }) }));
      }
    } finally {
      clearInterval(heartbeat);
      this.open.delete(controller);
      controller.abort();
      await events.return?.().catch(() => undefined);
      raw.end();
    }
  }
}

/** `data` is JSON (one line); ids and event names are ours (no newlines), so no field can inject another. */
function format(event: ServerSentEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  for (const line of event.data.split('\n')) text += `data: ${line}\n`;
  return `${text}\n`;
}
