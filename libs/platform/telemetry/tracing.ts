import { ROOT_CONTEXT, SpanKind, SpanStatusCode, TraceFlags, context, propagation, trace, type Attributes, type Context, type Link, type Span } from '@opentelemetry/api';

/**
 * Spans through the OpenTelemetry API. Without an SDK registered (a unit test, a tool) every
 * call here is a no-op; the runtime registers one per process (runtime/telemetry-sdk.ts).
 * Trace context travels as W3C `traceparent` / `tracestate`: in HTTP and NATS headers, in the
 * in-process transport's message context, and in the metadata of the events a request appends.
 */
export interface TraceHeaders {
  readonly traceparent?: string;
  readonly tracestate?: string;
}

const TRACER = 'lore';

/**
 * Whether spans are recorded (an exporter is configured). When they are not, spans exist only
 * to carry ids, and hot paths that would open one only to pass the active trace on skip it
 * (the transport's message spans): the request's own span already carries the trace id.
 */
let recording = false;
/** Whether the runtime registered the SDK (a unit test or a tool may not: then spans carry no ids at all). */
let registered = false;
export function setSpansRecorded(on: boolean): void {
  recording = on;
  registered = true;
}
export function spansRecorded(): boolean {
  return recording;
}

/** Whether the active span is the one a `traceparent` names (the in-process transport hands the caller's own context on). */
export function isActiveTrace(traceparent: string): boolean {
  const active = trace.getActiveSpan()?.spanContext();
  if (active === undefined) return false;
  // The second and third dash-separated fields, compared in place (this runs for every message served).
  const traceStart = traceparent.indexOf('-') + 1;
  const spanStart = traceStart + active.traceId.length + 1;
  const spanEnd = spanStart + active.spanId.length;
  return (
    traceStart > 0 &&
    traceparent.startsWith(active.traceId, traceStart) &&
    traceparent.charCodeAt(spanStart - 1) === 0x2d &&
    traceparent.startsWith(active.spanId, spanStart) &&
    (spanEnd === traceparent.length || traceparent.charCodeAt(spanEnd) === 0x2d)
  );
}

/** A context whose parent is the remote span the headers name (the root context when they name none). */
export function contextFromTraceHeaders(headers: TraceHeaders | undefined): Context {
  if (headers?.traceparent === undefined) return ROOT_CONTEXT;
  return propagation.extract(ROOT_CONTEXT, { ...headers });
}

export interface SpanOptions {
  readonly kind: SpanKind;
  readonly attributes?: Attributes;
  /** Parent context; the active one when absent. */
  readonly parent?: Context;
  readonly links?: Link[];
}

/** Starts a span that the caller ends (an HTTP request spans several hooks). */
export function startSpan(name: string, options: SpanOptions): { span: Span; context: Context } {
  const parent = options.parent ?? context.active();
  if (registered && !recording) return idsOnly(parent);
  const span = trace.getTracer(TRACER).startSpan(name, { kind: options.kind, ...(options.attributes ? { attributes: options.attributes } : {}), ...(options.links ? { links: options.links } : {}) }, parent);
  return { span, context: trace.setSpan(parent, span) };
}

const HEX_BYTES = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'));
const randomHex = (bytes: number): string => {
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += HEX_BYTES[Math.floor(Math.random() * 256)] ?? '00';
  return hex;
};

/**
 * What the SDK's tracer makes when its sampler is off, without the tracer: a non-recording span
 * with a new span id, in the parent's trace or a new one (ids from Math.random, as the SDK's
 * generator), so log lines and the `traceparent` passed on still name a trace.
 */
function idsOnly(parent: Context): { span: Span; context: Context } {
  const traceId = trace.getSpanContext(parent)?.traceId ?? randomHex(16);
  const span = trace.wrapSpanContext({ traceId, spanId: randomHex(8), traceFlags: TraceFlags.NONE });
  return { span, context: trace.setSpan(parent, span) };
}

/** Runs work inside a new span, ended when the work settles; a failure marks it as an error. */
export async function inSpan<T>(name: string, options: SpanOptions, work: (span: Span) => Promise<T>): Promise<T> {
  const { span, context: spanContext } = startSpan(name, options);
  try {
    return await context.with(spanContext, () => work(span));
  } catch (error) {
    markFailed(span, error);
    throw error;
  } finally {
    span.end();
  }
}

/** The `code` an error carries (an AppError's, or a Node system error's), if any. */
export function errorCode(error: unknown): string | undefined {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' ? error.code : undefined;
}

function markFailed(span: Span, error: unknown): void {
  const code = errorCode(error);
  span.setStatus({ code: SpanStatusCode.ERROR, ...(code === undefined ? {} : { message: code }) });
  if (code !== undefined) span.setAttribute('lore.error_code', code);
}

/** What an event says about the trace that appended it (`traceparent` in its metadata). */
interface TracedEvent {
  readonly metadata: { readonly [key: string]: unknown };
}

/**
 * A processor's batch in a span: the child of the first event's trace (a request's events
 * usually come as one batch), linked to every other trace the batch carries. So a reactor's
 * work, and its log lines, share the trace id of the request whose write caused it.
 */
export function inProcessorSpan<T>(processor: string, events: readonly TracedEvent[], work: () => Promise<T>): Promise<T> {
  if (!recording) {
    // Nothing records the span: only its trace id would be seen (in log lines), and the first
    // event's trace gives that without a span or links being made for every batch of every processor.
    const traceparent = events[0]?.metadata['traceparent'];
    return typeof traceparent === 'string' ? context.with(remoteContext(traceparent), work) : work();
  }
  const parents: string[] = [];
  for (const event of events) {
    const traceparent = event.metadata['traceparent'];
    if (typeof traceparent === 'string' && !parents.includes(traceparent)) parents.push(traceparent);
  }
  const [first, ...others] = parents;
  const links = others.flatMap((traceparent): Link[] => {
    const linked = trace.getSpanContext(contextFromTraceHeaders({ traceparent }));
    return linked === undefined ? [] : [{ context: linked }];
  });
  return inSpan(
    `process ${processor}`,
    { kind: SpanKind.CONSUMER, parent: first === undefined ? ROOT_CONTEXT : contextFromTraceHeaders({ traceparent: first }), links, attributes: { 'lore.processor': processor, 'lore.events': events.length } },
    () => work(),
  );
}

/**
 * The context a `traceparent` names, the last one kept: every processor of a context handles
 * the same batch of events in turn, and would otherwise parse the same header once each.
 * Contexts are immutable, so sharing one is safe.
 */
let lastRemote: { readonly traceparent: string; readonly context: Context } | null = null;
function remoteContext(traceparent: string): Context {
  if (lastRemote?.traceparent !== traceparent) lastRemote = { traceparent, context: contextFromTraceHeaders({ traceparent }) };
  return lastRemote.context;
}

/** `trace_id` and `span_id` of a span, for log lines (empty without one). */
export function traceFields(span: Span | undefined): { trace_id?: string; span_id?: string } {
  if (span === undefined) return {};
  const { traceId, spanId } = span.spanContext();
  return { trace_id: traceId, span_id: spanId };
}

/** `trace_id` and `span_id` of the active span (empty when none is active). */
export function activeTraceFields(): { trace_id?: string; span_id?: string } {
  return traceFields(trace.getActiveSpan());
}

export { SpanKind };
