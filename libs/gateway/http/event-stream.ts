import { once } from 'node:events';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { AppError } from '@lore/platform/kernel';
import type { EventStreamReply, RequestScope, ServerSentEvent } from '@lore/platform/http';

/** How long a client waits before reconnecting after the stream broke (the SSE `retry` field). */
const RETRY_MS = 2_000;
/** Retry-After of a refused stream: a slot frees only when another stream ends, which nobody can foretell. */
const FULL_RETRY_AFTER_SECONDS = 10;
/** Frames are written together up to this size (a socket write each); the turn's end writes the rest. */
const FLUSH_BYTES = 64 * 1024;

/** EVENTS_MAX_STREAMS_PER_CALLER and EVENTS_MAX_STREAMS_PER_WORKSPACE; 0 is no cap. */
export interface EventStreamLimits {
  readonly perCaller: number;
  readonly perWorkspace: number;
}

/** The defaults of the runtime's configuration, for a gateway configured without limits. */
export const DEFAULT_EVENT_STREAM_LIMITS: EventStreamLimits = { perCaller: 10, perWorkspace: 100 };

/**
 * Writes an `EventStreamReply` on a hijacked reply: headers that keep proxies from buffering,
 * then each event as the socket drains, a comment line every `heartbeatMs` so idle
 * connections stay open through proxies and dead ones are noticed, until the client leaves or
 * the server closes (`closeAll`, from the server's preClose hook).
 *
 * Each open stream holds a JetStream consumer (distributed) or a feed reader (standalone), a
 * socket and a heartbeat timer, so their number is capped per caller (API key or JWT user)
 * and per workspace: one more is refused with 429 naming the cap, before anything is opened.
 * The counts are this process's (streams are bound to the gateway that serves them): N
 * gateways admit up to N times the caps. A slot frees when its stream ends for any reason.
 */
export class EventStreams {
  private readonly open = new Set<AbortController>();
  private readonly perCaller = new Map<string, number>();
  private readonly perWorkspace = new Map<string, number>();

  constructor(
    private readonly heartbeatMs: number,
    private readonly limits: EventStreamLimits = DEFAULT_EVENT_STREAM_LIMITS,
  ) {}

  /** Ends every stream (the server is stopping): clients reconnect elsewhere with their Last-Event-ID. */
  closeAll(): void {
    for (const controller of this.open) controller.abort();
  }

  register(app: FastifyInstance): void {
    app.addHook('preClose', async () => this.closeAll());
  }

  async send(reply: FastifyReply, stream: EventStreamReply, lastEventId: string | undefined, scope: RequestScope): Promise<void> {
    const controller = new AbortController();
    const { signal } = controller;
    // Throws before taking a slot (a Last-Event-ID that does not open is a 422, not a stream).
    const events = stream.open(lastEventId, signal)[Symbol.asyncIterator]();
    const release = this.take(scope, reply);
    const raw = reply.raw;
    reply.hijack();
    this.open.add(controller);
    // The slot frees as soon as the client leaves, not when the feed's reader notices.
    const leave = (): void => {
      release();
      controller.abort();
    };
    raw.on('close', leave);
    // A client gone while the stream was prepared (its 'close' already fired) holds no slot.
    if (raw.socket === null || raw.socket.destroyed) leave();
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
    // Frames of one turn of the event loop (a page, or several small ones of a live tail)
    // leave in one socket write: each page made into bytes at once, written when the turn ends
    // or once they are large. Nothing more is pulled from the feed while the socket has not drained.
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let flushing = false;
    let drained: Promise<unknown> | undefined;
    const flush = (): void => {
      flushing = false;
      if (pendingBytes === 0) return;
      const bytes = pending.length === 1 ? pending[0] : Buffer.concat(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      if (!raw.write(bytes)) drained ??= once(raw, 'drain', { signal }).catch(() => undefined).finally(() => (drained = undefined));
    };
    try {
      while (!signal.aborted) {
        if (drained !== undefined) await drained;
        const next = await events.next();
        if (next.done === true || signal.aborted) break;
        const frames = framesOf(next.value);
        pending.push(frames);
        pendingBytes += frames.length;
        if (pendingBytes >= FLUSH_BYTES) flush();
        else if (!flushing) {
          flushing = true;
          setImmediate(flush);
        }
      }
    } catch (error) {
      if (!signal.aborted) {
        reply.request.log.error({ err: error }, 'event stream failed');
        flush();
        raw.write(format({ event: 'error', data: JSON.stringify({ message: 'The event stream failed; reconnect with Last-Event-ID to resume.' }) }));
      }
    } finally {
      flush();
      clearInterval(heartbeat);
      release();
      this.open.delete(controller);
      controller.abort();
      await events.return?.().catch(() => undefined);
      raw.end();
    }
  }

  /** Takes a slot of the caller's and the workspace's caps, or throws 429; gives back the (idempotent) release. */
  private take(scope: RequestScope, reply: FastifyReply): () => void {
    // Keyed within the workspace: the same user id in two workspaces is two people.
    const caller = `${scope.workspaceId}\n${scope.actor}`;
    const { perCaller, perWorkspace } = this.limits;
    const refuse = (limit: number, whose: string, variable: string): never => {
      reply.header('Retry-After', String(FULL_RETRY_AFTER_SECONDS));
      throw new AppError('rate_limited', `Event stream limit ${variable} of ${limit} open streams reached for ${whose} on this gateway; close one, or retry after ${FULL_RETRY_AFTER_SECONDS} s`);
    };
    if (perCaller > 0 && (this.perCaller.get(caller) ?? 0) >= perCaller) refuse(perCaller, 'this API key or user', 'EVENTS_MAX_STREAMS_PER_CALLER');
    if (perWorkspace > 0 && (this.perWorkspace.get(scope.workspaceId) ?? 0) >= perWorkspace) refuse(perWorkspace, 'this workspace', 'EVENTS_MAX_STREAMS_PER_WORKSPACE');
    increment(this.perCaller, caller, 1);
    increment(this.perWorkspace, scope.workspaceId, 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      increment(this.perCaller, caller, -1);
      increment(this.perWorkspace, scope.workspaceId, -1);
    };
  }
}

/** Adds to a count, forgetting it at 0 so the maps hold only callers and workspaces with open streams. */
function increment(counts: Map<string, number>, key: string, by: number): void {
  const next = (counts.get(key) ?? 0) + by;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}

/** A page of events as the bytes of their frames, in one buffer: the text of the page, encoded once. */
function framesOf(events: readonly ServerSentEvent[]): Buffer {
  let text = '';
  for (const event of events) text += format(event);
  return Buffer.from(text);
}

/** One event's frame as text, a `data:` line for each line of its data. */
function format(event: ServerSentEvent): string {
  let text = '';
  if (event.id !== undefined) text += `id: ${event.id}\n`;
  if (event.event !== undefined) text += `event: ${event.event}\n`;
  const data = event.data;
  // JSON.stringify never writes a line break: the usual case is one line, without a split.
  // Any of CR LF, LF and CR ends a line for an SSE client, so each becomes a `data:` line of its own.
  if (!data.includes('\n') && !data.includes('\r')) return `${text}data: ${data}\n\n`;
  for (const line of data.split(/\r\n|\r|\n/)) text += `data: ${line}\n`;
  return `${text}\n`;
}
