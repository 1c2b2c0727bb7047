import { AppError, type SerializedError } from '@lore/platform/kernel';
import {
  DEFAULT_REQUEST_TIMEOUT_MS,
  subjectMatches,
  type EventHandler,
  type MessageContext,
  type MessageTrace,
  type RequestHandler,
  type RequestOptions,
  type Transport,
  type TransportSubscription,
} from '@lore/platform/transport/port';
import { jsonCopy } from './json-copy';

/**
 * The standalone app's transport: every message stays in this process, but crosses the
 * same boundary NATS would impose (JSON copies, serialized errors), so a context module
 * behaves identically in both topologies and no one comes to rely on shared references.
 */
export interface InProcessTransportOptions {
  /**
   * Receives failures that have no caller to go to (event handler errors). Without it
   * they are dropped: a subscriber's bug must never reach the publisher or crash the process.
   */
  readonly onError?: (error: unknown) => void;
}

type Outcome = { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: SerializedError };

interface Server {
  readonly handler: RequestHandler;
  /** Outcomes not yet produced, so closing can wait for them like a NATS drain does. */
  readonly inFlight: Set<Promise<Outcome>>;
}

interface Route {
  readonly servers: Server[];
  next: number;
}

interface Subscriber {
  readonly pattern: string;
  readonly handler: EventHandler;
  /** Deliveries are chained so one subscriber sees events in publish order, as over NATS. */
  tail: Promise<void>;
}

/** What publish returns: already settled, shared, as nothing waits on subscribers. */
const PUBLISHED: Promise<void> = Promise.resolve();

const INTERNAL: SerializedError = { code: 'internal', message: 'internal error', issues: [] };

export function createInProcessTransport(options: InProcessTransportOptions = {}): Transport {
  const routes = new Map<string, Route>();
  const subscribers = new Set<Subscriber>();
  let closing: Promise<void> | undefined;

  const report = (error: unknown): void => {
    try {
      options.onError?.(error);
    } catch {
      // A failing error reporter must not turn a handled failure into a crash.
    }
  };

  const assertOpen = (): void => {
    if (closing !== undefined) throw new AppError('unavailable', 'transport is closed');
  };

  const pick = (subject: string): Server | undefined => {
    const route = routes.get(subject);
    if (route === undefined) return undefined;
    const server = route.servers[route.next % route.servers.length];
    route.next = (route.next + 1) % route.servers.length;
    return server;
  };

  const unroute = (subject: string, server: Server): void => {
    const route = routes.get(subject);
    if (route === undefined) return;
    const index = route.servers.indexOf(server);
    if (index >= 0) route.servers.splice(index, 1);
    if (route.servers.length === 0) routes.delete(subject);
  };

  return {
    // Not async, and one promise per step: this runs for every request, and every promise pays
    // the request context's async hooks.
    request(subject: string, payload: unknown, requestOptions?: RequestOptions): Promise<unknown> {
      let server: Server | undefined;
      let input: unknown;
      try {
        assertOpen();
        server = pick(subject);
        if (server === undefined) throw new AppError('unavailable', `no service answers ${subject}`);
        input = jsonCopy(payload);
      } catch (error) {
        return Promise.reject(error);
      }
      const timeoutMs = requestOptions?.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
      const outcome = invoke(server.handler, input, contextFor(subject, requestOptions?.requestId, requestOptions?.trace, Date.now() + timeoutMs));
      const { inFlight } = server;
      inFlight.add(outcome);
      return withTimeout(outcome, subject, timeoutMs, () => inFlight.delete(outcome));
    },

    async serve(subject: string, handler: RequestHandler): Promise<TransportSubscription> {
      assertOpen();
      const server: Server = { handler, inFlight: new Set() };
      const route = routes.get(subject);
      if (route === undefined) routes.set(subject, { servers: [server], next: 0 });
      else route.servers.push(server);
      return {
        close: async () => {
          unroute(subject, server);
          await Promise.all(server.inFlight);
        },
      };
    },

    // Not async: one settled promise serves every publish (each promise pays the request context's async hooks).
    publish(subject: string, payload: unknown, publishOptions?: { readonly requestId?: string }): Promise<void> {
      let text: string;
      try {
        assertOpen();
        // Serialized once, here: later mutations by the publisher cannot reach subscribers,
        // and a non-JSON payload fails the publisher as it would over NATS.
        text = JSON.stringify(payload);
      } catch (error) {
        return Promise.reject(error);
      }
      const context = contextFor(subject, publishOptions?.requestId, undefined);
      for (const subscriber of subscribers) {
        if (!subjectMatches(subscriber.pattern, subject)) continue;
        subscriber.tail = subscriber.tail.then(async () => {
          try {
            await subscriber.handler(parse(text), context);
          } catch (error) {
            report(error);
          }
        });
      }
      return PUBLISHED;
    },

    async subscribe(subject: string, handler: EventHandler): Promise<TransportSubscription> {
      assertOpen();
      const subscriber: Subscriber = { pattern: subject, handler, tail: Promise.resolve() };
      subscribers.add(subscriber);
      return {
        close: async () => {
          subscribers.delete(subscriber);
          await subscriber.tail;
        },
      };
    },

    isReady: () => closing === undefined,

    close(): Promise<void> {
      closing ??= (async () => {
        const servers = [...routes.values()].flatMap((route) => route.servers);
        const pending = [...subscribers];
        routes.clear();
        subscribers.clear();
        // Like a NATS drain: nothing new is accepted, but work already started finishes.
        await Promise.all([...servers.flatMap((server) => [...server.inFlight]), ...pending.map((s) => s.tail)]);
      })();
      return closing;
    },
  };
}

/** Never rejects: a handler failure (thrown or rejected) is an outcome for the caller, not an exception here. */
function invoke(handler: RequestHandler, input: unknown, context: MessageContext): Promise<Outcome> {
  let pending: Promise<unknown>;
  try {
    pending = handler(input, context);
  } catch (error) {
    return Promise.resolve(failure(error));
  }
  return pending.then(success, failure);
}

/** A reply as it would cross the wire; one that cannot (not JSON) fails as the handler's error. */
function success(result: unknown): Outcome {
  try {
    return { ok: true, result: jsonCopy(result) };
  } catch (error) {
    return failure(error);
  }
}

function failure(error: unknown): Outcome {
  return { ok: false, error: serializeError(error) };
}

/** Only AppErrors are meant for callers; anything else may carry internals, so it is masked. */
function serializeError(error: unknown): SerializedError {
  if (!(error instanceof AppError)) return INTERNAL;
  try {
    return jsonCopy(error.toJSON()) as SerializedError;
  } catch {
    return INTERNAL;
  }
}

/**
 * One timer per request, cleared on answer and unref'd, so a pending timeout neither
 * accumulates on the hot path nor keeps the process alive. `settled` runs once the handler
 * is done, even after a timeout (one reaction per request rather than two). Resolves with the
 * handler's result, rejects with its error (or the timeout).
 */
function withTimeout(outcome: Promise<Outcome>, subject: string, timeoutMs: number, settled: () => void): Promise<unknown> {
  return new Promise<unknown>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new AppError('unavailable', `service ${subject} did not answer within ${timeoutMs} ms`));
    }, timeoutMs);
    timer.unref();
    void outcome.then((result) => {
      settled();
      clearTimeout(timer);
      if (result.ok) resolve(result.result);
      else reject(AppError.from(result.error));
    });
  });
}

/** `deadline` only for requests: an event's handler has no caller waiting. */
function contextFor(subject: string, requestId: string | undefined, trace: MessageTrace | undefined, deadline?: number): MessageContext {
  return {
    subject,
    ...(requestId === undefined ? {} : { requestId }),
    ...(trace?.traceparent === undefined ? {} : { trace: { ...trace } }),
    ...(deadline === undefined ? {} : { deadline }),
  };
}

function parse(text: string | undefined): unknown {
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}
