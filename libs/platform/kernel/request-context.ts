import { AsyncLocalStorage } from 'node:async_hooks';
import { ROOT_CONTEXT, context as traceContext, propagation, type Context, type ContextManager } from '@opentelemetry/api';
import type { EventMetadata } from './events';

/**
 * Why a piece of work runs, and on whose behalf: set around each message a context serves
 * (the HTTP request that caused it: its id, which is also the correlation id of everything it
 * leads to) and around each reaction to a stored event (that event: the causation id, its
 * correlation id, its actor and workspace). Read where events are appended, so every stored
 * event says who and why without each command passing it along (audit, SPEC §6 left open;
 * issue 9). Only ids and names: never a secret or anything a user wrote.
 */
export interface RequestContext {
  readonly requestId?: string | undefined;
  readonly correlationId?: string | undefined;
  /** The id of the stored event this work reacts to. */
  readonly causationId?: string | undefined;
  readonly actor?: string | undefined;
  readonly workspaceId?: string | undefined;
  /**
   * When the caller stops waiting for the answer (epoch ms, this process's clock): set around
   * a served request from the budget the request carries. Work that may wait or retry (conflict
   * retries, read-your-writes) stops in time to answer within it. Absent for reactions.
   */
  readonly deadline?: number | undefined;
  /**
   * The streams this work appended to (filled by the command path), so that read-your-writes
   * can tell a write whose stream a processor has parked (answered at once) from one that is
   * only late. Present around served messages; absent in reactions.
   */
  readonly appendedStreams?: Set<string> | undefined;
}

/** What the one AsyncLocalStorage holds: the request context, and the active trace context beside it. */
interface Store extends RequestContext {
  readonly trace?: Context | undefined;
}

const storage = new AsyncLocalStorage<Store>();

/** Runs `work` in `context`; the active trace (span) goes on unchanged. */
export function withRequestContext<T>(context: RequestContext, work: () => T): T {
  return storage.run({ ...context, trace: storage.getStore()?.trace }, work);
}

/**
 * OpenTelemetry's context manager over the same AsyncLocalStorage as the request context,
 * registered by the runtime's tracer provider. A second AsyncLocalStorage (the SDK's own)
 * doubled the async-hook work of every promise on the request path (seen in profiles).
 */
export const requestContextManager: ContextManager = {
  active: () => storage.getStore()?.trace ?? ROOT_CONTEXT,
  with<A extends unknown[], F extends (...args: A) => ReturnType<F>>(trace: Context, fn: F, thisArg?: ThisParameterType<F>, ...args: A): ReturnType<F> {
    return storage.run({ ...storage.getStore(), trace }, () => fn.call(thisArg, ...args));
  },
  bind<T>(trace: Context, target: T): T {
    if (typeof target !== 'function') return target;
    const run = (...args: unknown[]): unknown => storage.run({ ...storage.getStore(), trace }, (): unknown => Reflect.apply(target, undefined, args));
    return run as T;
  },
  enable() {
    return this;
  },
  disable() {
    return this;
  },
};

/** The deadline of the request being served (see {@link RequestContext.deadline}); undefined outside one. */
export function requestDeadline(): number | undefined {
  return storage.getStore()?.deadline;
}

/**
 * How long work may still wait, at most `timeoutMs`: within the request's deadline less
 * `marginMs` kept for answering (the reply's way back). Never negative; `timeoutMs` outside a
 * served request.
 */
export function waitWithinDeadline(timeoutMs: number, marginMs = 250): number {
  const deadline = requestDeadline();
  if (deadline === undefined) return timeoutMs;
  return Math.max(0, Math.min(timeoutMs, deadline - Date.now() - marginMs));
}

/** Notes a stream the current work appended to (see `RequestContext.appendedStreams`). */
export function noteAppendedStream(streamId: string): void {
  storage.getStore()?.appendedStreams?.add(streamId);
}

/** The streams the current work appended to so far; none outside a served message. */
export function appendedStreams(): string[] {
  return [...(storage.getStore()?.appendedStreams ?? [])];
}

/** What a reaction needs of the stored event that caused it (a `RecordedEvent` is one). */
export interface EventCause {
  readonly id: string;
  readonly metadata: EventMetadata;
}

/**
 * Runs work done in reaction to a stored event (by a reactor, or a background worker that
 * found it) in the context that event defines, so every event the work appends carries
 * `causationId` = the event's id, the event's `correlationId` (its id when it has none: it
 * started a chain), and the event's actor and workspace; `system:<by>` is the actor when the
 * event names none. Without a known cause (a periodic repair), the actor alone. Replaces any
 * context the caller runs in: a reaction is never attributed to the request that happened to
 * wake it. Timers and promises started inside keep the context.
 */
export function reactingTo<T>(cause: EventCause | null | undefined, by: string, work: () => T): T {
  return storage.run({ ...reactionContext(cause, by), trace: storage.getStore()?.trace }, work);
}

export function reactionContext(cause: EventCause | null | undefined, by: string): RequestContext {
  const system = `system:${by}`;
  if (cause === null || cause === undefined) return { actor: system };
  const { metadata } = cause;
  return {
    causationId: cause.id,
    correlationId: text(metadata.correlationId) ?? cause.id,
    actor: text(metadata.actor) ?? system,
    workspaceId: text(metadata.workspaceId),
  };
}

/** What {@link requestMetadata} gives. */
export type RequestMetadata = Pick<EventMetadata, 'correlationId' | 'causationId' | 'actor' | 'workspaceId'> & { requestId?: string; traceparent?: string };

/**
 * The metadata an event appended now carries about who and why: empty outside a served
 * message or a reaction. A command's own metadata (its actor, its workspace) goes over it.
 * Inside a traced request it also carries the W3C `traceparent`, so the processors that
 * handle the event continue that trace (telemetry's `inProcessorSpan`). Never `tracestate`:
 * it is whatever an unauthenticated client sent (vendor data of any content), it would be
 * stored for good in the log (crypto-shredding covers event data, not metadata), and the
 * trace link needs only the `traceparent`.
 */
export function requestMetadata(): RequestMetadata {
  // Filled in place rather than spread together: this runs for every append.
  const metadata: { -readonly [K in keyof RequestMetadata]: RequestMetadata[K] } = {};
  const context = storage.getStore();
  if (context !== undefined) {
    const correlationId = context.correlationId ?? context.requestId;
    if (context.requestId !== undefined) metadata.requestId = context.requestId;
    if (correlationId !== undefined) metadata.correlationId = correlationId;
    if (context.causationId !== undefined) metadata.causationId = context.causationId;
    if (context.actor !== undefined) metadata.actor = context.actor;
    if (context.workspaceId !== undefined) metadata.workspaceId = context.workspaceId;
  }
  const { traceparent } = activeTraceHeaders();
  if (traceparent !== undefined) metadata.traceparent = traceparent;
  return metadata;
}

/** The W3C trace headers of a context, as {@link activeTraceHeaders} gives them. */
export interface ActiveTraceHeaders {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

const NO_TRACE_HEADERS: ActiveTraceHeaders = Object.freeze({});

/** The last context injected and its headers (see {@link activeTraceHeaders}). */
let lastInjected: { readonly context: Context; readonly headers: ActiveTraceHeaders } | null = null;

/**
 * The active trace context's W3C `traceparent` and `tracestate`, as the registered propagator
 * writes them (nothing when no span is active or no propagator is registered). The last
 * context's are kept: a request's context is injected at least twice (the message it sends,
 * then the events its command appends), and both the context (immutable) and the propagator
 * (registered once, at start) stay the same. The root context, shared by every untraced piece
 * of work, is never kept.
 */
export function activeTraceHeaders(): ActiveTraceHeaders {
  const active = traceContext.active();
  if (lastInjected !== null && lastInjected.context === active) return lastInjected.headers;
  const carrier: { traceparent?: string; tracestate?: string } = {};
  propagation.inject(active, carrier);
  const { traceparent, tracestate } = carrier;
  const headers: ActiveTraceHeaders =
    traceparent === undefined && tracestate === undefined
      ? NO_TRACE_HEADERS
      : Object.freeze({ ...(traceparent === undefined ? {} : { traceparent }), ...(tracestate === undefined ? {} : { tracestate }) });
  if (active !== ROOT_CONTEXT) lastInjected = { context: active, headers };
  return headers;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}
