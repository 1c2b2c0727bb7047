import { AppError, type SerializedError } from '@lore/platform/kernel';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  subjectMatches,
  type EventHandler,
  type MessageContext,
  type MessageTrace,
  type PublishOptions,
  type RequestHandler,
  type RequestOptions,
  type Transport,
  type TransportSubscription,
} from '@lore/platform/transport/port';
import {
  ErrorCode,
  Events,
  connect,
  headers,
  nuid,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  type Subscription,
} from 'nats';
import {
  INTERNAL_ERROR,
  decodeIncoming,
  decodeReply,
  encodeEvent,
  encodeFailure,
  encodeRequest,
  encodeResponse,
  errorOfReply,
} from './nats-wire.codec';
import { natsConnectionOptions } from './connection-options';
import { openEventStream, type EventStream, type EventStreamOptions } from './event-stream';
import { replyInbox } from './reply-inbox';
import { PartedReplies, ReplyAssembly, acceptParts, acceptsParts } from './reply-parts';
import { assertFits } from './max-payload';

/** Carries the HTTP request id across processes for log correlation. */
export const REQUEST_ID_HEADER = 'Lore-Request-Id';
/**
 * The caller's budget for a request, in ms: how long it will wait for the answer. Relative, not
 * a timestamp, so that clocks of different hosts need not agree; the server measures it from the
 * message's arrival (the time in flight is negligible beside it).
 */
export const TIMEOUT_HEADER = 'Lore-Timeout-Ms';
/** How long a closing transport lets replies in parts go on (reply-parts.ts). */
const PARTED_REPLIES_GRACE_MS = 2_000;
/** W3C trace context, under the names HTTP uses (OpenTelemetry's NATS instrumentations read the same). */
export const TRACEPARENT_HEADER = 'traceparent';
export const TRACESTATE_HEADER = 'tracestate';

export interface NatsTransportOptions {
  readonly url: string;
  /** Connection name shown by the NATS server's monitoring, e.g. the service name. */
  readonly name?: string;
  /**
   * Receives failures that have no caller to go to: event handler errors, replies that
   * could not be sent, asynchronous errors from the server. Without it they are dropped.
   */
  readonly onError?: (error: unknown) => void;
  /**
   * Keeps integration events (`<prefix>.events.>`) in a JetStream stream, created or updated
   * at connect; without it every publish is core NATS (fire and forget).
   */
  readonly eventStream?: EventStreamOptions;
}

interface Handle {
  /** `drain` false when the connection is gone: draining would wait for a reconnect. */
  close(drain: boolean): Promise<void>;
}

/** Connects (rejecting if the server is unreachable now) and reconnects forever afterwards. */
export async function connectNatsTransport(options: NatsTransportOptions): Promise<Transport> {
  const nc = await connect(natsConnectionOptions(options.url, options.name));
  let events: EventStream | undefined;
  try {
    if (options.eventStream !== undefined) events = await openEventStream(nc, options.eventStream);
  } catch (error) {
    await nc.close();
    throw error;
  }
  return natsTransport(nc, options.onError, events);
}

function natsTransport(nc: NatsConnection, onError: ((error: unknown) => void) | undefined, events: EventStream | undefined): Transport {
  const handles = new Set<Handle>();
  let connected = true;
  let closing: Promise<void> | undefined;

  const report = (error: unknown): void => {
    try {
      onError?.(error);
    } catch {
      // A failing error reporter must not turn a handled failure into a crash.
    }
  };
  const replies = replyInbox(nc, report);
  const parted = new PartedReplies(nc, report);

  void watchStatus(nc, report, (up) => {
    connected = up;
  });
  void nc.closed().then((error) => {
    connected = false;
    // Nothing can reach a requester now: no reply waits for acknowledgements that cannot come.
    parted.close();
    if (error) report(error);
  });

  const assertOpen = (): void => {
    if (closing !== undefined || nc.isClosed()) throw new AppError('unavailable', 'transport is closed');
  };

  const track = (handle: Handle): TransportSubscription => {
    handles.add(handle);
    return {
      close: async () => {
        handles.delete(handle);
        await handle.close(connected);
      },
    };
  };

  return {
    async request(subject: string, payload: unknown, requestOptions?: RequestOptions): Promise<unknown> {
      assertOpen();
      const timeoutMs = requestOptions?.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const id = nuid.next();
      const data = encodeRequest(subject, payload, id);
      const hdrs = messageHeaders(requestOptions?.requestId, requestOptions?.trace) ?? headers();
      hdrs.set(TIMEOUT_HEADER, String(timeoutMs));
      acceptParts(hdrs);
      assertFits(data, nc.info?.max_payload, `the request to ${subject}`, hdrs);
      try {
        // A Nest server may answer with several messages ({ response }… then { isDisposed }):
        // the request reads them until the last; its timer bounds the whole stream.
        let result: unknown;
        const assembly = new ReplyAssembly(subject, (ackSubject, part) => nc.publish(ackSubject, String(part)));
        return await replies.request(subject, data, hdrs, timeoutMs, (reply) => {
          const whole = assembly.add(reply);
          if (whole === undefined) return undefined;
          const packet = decodeReply(whole, subject);
          // Like Nest's client: a packet for another request is not ours to read.
          if (packet.id !== undefined && packet.id !== id) return undefined;
          if (packet.err) throw AppError.from(errorOfReply(packet.err) ?? masked(packet.err, subject, report));
          // The last response of the stream wins, as with Nest's lastValueFrom.
          if (packet.hasResponse) result = packet.response;
          return packet.isDisposed ? { done: true, value: result } : undefined;
        });
      } catch (error) {
        throw requestFailure(error, subject, timeoutMs, report);
      }
    },

    async serve(subject: string, handler: RequestHandler): Promise<TransportSubscription> {
      assertOpen();
      const inFlight = new Set<Promise<void>>();
      // The queue group is the subject: every instance of a service shares its requests.
      const sub = nc.subscribe(subject, {
        queue: subject,
        callback: (error, msg) => {
          if (error) return report(error);
          const answered = answer(handler, msg, report, parted, nc.info?.max_payload);
          inFlight.add(answered);
          void answered.then(() => inFlight.delete(answered));
        },
      });
      // Resolve only once the server knows the subscription, so a request sent right after
      // from another connection finds a responder.
      await nc.flush();
      return track(drainable(sub, async () => {
        await Promise.all(inFlight);
      }, report));
    },

    async publish(subject: string, payload: unknown, publishOptions?: PublishOptions): Promise<void> {
      assertOpen();
      const data = encodeEvent(subject, payload);
      const hdrs = messageHeaders(publishOptions?.requestId, undefined);
      if (events !== undefined && subjectMatches(events.subject, subject)) {
        // JetStream also delivers to core subscribers (a stock Nest @EventPattern), so these
        // subjects reach them as before; waiting for the ack lets a reactor's checkpoint
        // advance only past events JetStream holds, and a rejection makes the reactor retry.
        try {
          await events.publish(subject, data, hdrs, publishOptions?.messageId);
        } catch (error) {
          throw notStored(error, subject, report);
        }
        return;
      }
      try {
        nc.publish(subject, data, hdrs ? { headers: hdrs } : {});
      } catch (error) {
        throw requestFailure(error, subject, 0, report);
      }
    },

    async subscribe(subject: string, handler: EventHandler): Promise<TransportSubscription> {
      assertOpen();
      const sub = nc.subscribe(subject);
      // Sequential per subscription: events arrive in publish order and a slow handler
      // applies back-pressure instead of piling up concurrent work.
      const loop = (async () => {
        try {
          for await (const msg of sub) {
            try {
              await handler(decodeIncoming(msg.data, msg.subject).data, contextOf(msg));
            } catch (error) {
              report(error);
            }
          }
        } catch (error) {
          report(error);
        }
      })();
      await nc.flush();
      return track(drainable(sub, () => loop, report));
    },

    isReady: () => connected && closing === undefined && !nc.isClosed() && !nc.isDraining(),

    close(): Promise<void> {
      closing ??= (async () => {
        // Replies in parts get a moment to finish; one whose requester stopped acknowledging would hold the close for its whole wait.
        const giveUp = setTimeout(() => parted.close(), PARTED_REPLIES_GRACE_MS);
        const drain = connected;
        const open = [...handles];
        handles.clear();
        // Subscriptions first, waiting for their handlers, so replies still go out on an
        // open connection; only then drain the connection itself.
        await Promise.all(open.map((handle) => handle.close(drain)));
        clearTimeout(giveUp);
        if (nc.isClosed()) return;
        try {
          await (drain ? nc.drain() : nc.close());
        } catch (error) {
          if (!nc.isClosed()) report(error);
        }
      })();
      return closing;
    },
  };
}

/**
 * Runs a request handler and replies with one packet, `isDisposed` set: in parts when it is over
 * `max_payload` and the requester can put them together (reply-parts.ts). Never rejects.
 */
async function answer(handler: RequestHandler, msg: Msg, report: (error: unknown) => void, parted: PartedReplies, maxPayload: number | undefined): Promise<void> {
  if (!msg.reply) {
    report(new AppError('validation', `message on ${msg.subject} expects a reply but has no reply subject`));
    return;
  }
  let id: unknown;
  let body: Uint8Array;
  try {
    const request = decodeIncoming(msg.data, msg.subject);
    id = request.id;
    const result = await handler(request.data, contextOf(msg));
    body = encodeResponse(id, result);
    if (maxPayload !== undefined && body.length > maxPayload && acceptsParts(msg)) {
      try {
        await parted.send(msg, body, maxPayload, () => msg.respond(encodeFailure(id, new AppError('unavailable', 'the reply was given up: its parts were not acknowledged in time'))));
        return;
      } catch (error) {
        // Cut short (a closed connection, a reply too large even in parts): the host hears why,
        // the requester gets the failure below, which ends its wait for the rest.
        if (!(error instanceof AppError)) report(error);
        throw error;
      }
    }
    assertFits(body, maxPayload, `the reply on ${msg.subject}`);
  } catch (error) {
    body = encodeFailure(id, error);
  }
  try {
    msg.respond(body);
  } catch (error) {
    report(error);
  }
}

function drainable(sub: Subscription, settled: () => Promise<void>, report: (error: unknown) => void): Handle {
  let closing: Promise<void> | undefined;
  return {
    close(drain: boolean): Promise<void> {
      closing ??= (async () => {
        try {
          if (!sub.isClosed()) {
            if (drain) await sub.drain();
            else sub.unsubscribe();
          }
        } catch (error) {
          report(error);
        }
        await settled();
      })();
      return closing;
    },
  };
}

/**
 * NATS headers, never the body: the body stays the @nestjs/microservices packet, so stock Nest
 * clients and servers keep working (they ignore headers they do not know).
 */
function messageHeaders(requestId: string | undefined, trace: MessageTrace | undefined): MsgHdrs | undefined {
  if (requestId === undefined && trace?.traceparent === undefined) return undefined;
  const hdrs = headers();
  if (requestId !== undefined) hdrs.set(REQUEST_ID_HEADER, requestId);
  if (trace?.traceparent !== undefined) hdrs.set(TRACEPARENT_HEADER, trace.traceparent);
  if (trace?.tracestate !== undefined) hdrs.set(TRACESTATE_HEADER, trace.tracestate);
  return hdrs;
}

function contextOf(msg: Msg): MessageContext {
  // nats.js answers '' for an absent header.
  const requestId = msg.headers?.get(REQUEST_ID_HEADER);
  const budget = Number(msg.headers?.get(TIMEOUT_HEADER) || Number.NaN);
  const traceparent = msg.headers?.get(TRACEPARENT_HEADER);
  const tracestate = msg.headers?.get(TRACESTATE_HEADER);
  const trace: MessageTrace | undefined = traceparent ? { traceparent, ...(tracestate ? { tracestate } : {}) } : undefined;
  return {
    subject: msg.subject,
    ...(requestId ? { requestId } : {}),
    ...(trace ? { trace } : {}),
    ...(Number.isFinite(budget) && budget > 0 ? { deadline: Date.now() + budget } : {}),
  };
}

function requestFailure(error: unknown, subject: string, timeoutMs: number, report: (error: unknown) => void): AppError {
  if (error instanceof AppError) return error;
  const code = isRecord(error) && typeof error['code'] === 'string' ? error['code'] : undefined;
  if (code === ErrorCode.NoResponders) return new AppError('unavailable', `no service answers ${subject}`);
  // assertFits counts what the client counts; should they ever differ, the caller still learns its request was too large.
  if (code === ErrorCode.MaxPayloadExceeded) return new AppError('too_large', `the request to ${subject} is over the NATS server's max_payload`);
  if (code === ErrorCode.Timeout) return timedOut(subject, timeoutMs);
  if (code === ErrorCode.ConnectionClosed || code === ErrorCode.ConnectionDraining) {
    return new AppError('unavailable', 'transport is closed');
  }
  // Unexpected client failure: the caller gets a safe message, the host gets the cause.
  report(error);
  return new AppError('unavailable', `could not reach ${subject}`);
}

function notStored(error: unknown, subject: string, report: (error: unknown) => void): AppError {
  const code = isRecord(error) && typeof error['code'] === 'string' ? error['code'] : undefined;
  if (code === ErrorCode.ConnectionClosed || code === ErrorCode.ConnectionDraining) return new AppError('unavailable', 'transport is closed');
  report(error);
  return new AppError('unavailable', `JetStream did not acknowledge the event on ${subject}`);
}

function timedOut(subject: string, timeoutMs: number): AppError {
  return new AppError('unavailable', `service ${subject} did not answer within ${timeoutMs} ms`);
}

/**
 * A failure reply without Lore's error shape (a plain Nest RpcException, Nest's "Internal
 * server error"): not meant for Lore's callers, so they get `internal`, the host the cause.
 */
function masked(err: unknown, subject: string, report: (error: unknown) => void): SerializedError {
  report(new Error(`service ${subject} failed with a reply that is not a Lore error: ${summarize(err)}`));
  return INTERNAL_ERROR;
}

function summarize(value: unknown): string {
  try {
    if (typeof value === 'string') return value;
    // undefined for values JSON cannot express.
    const text = JSON.stringify(value) as string | undefined;
    return text ?? String(value);
  } catch {
    return String(value);
  }
}

async function watchStatus(nc: NatsConnection, report: (error: unknown) => void, setUp: (up: boolean) => void): Promise<void> {
  try {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect) setUp(false);
      else if (status.type === Events.Reconnect) setUp(true);
      else if (status.type === Events.Error) {
        const detail = typeof status.data === 'string' ? status.data : JSON.stringify(status.data);
        report(new Error(`NATS async error: ${detail}`));
      }
    }
  } catch (error) {
    report(error);
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
