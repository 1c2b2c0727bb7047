import type { FastifyInstance, FastifyRequest } from 'fastify';
import { SpanStatusCode, context as otelContext, type Context, type Span } from '@opentelemetry/api';
import { SpanKind, contextFromTraceHeaders, httpRequestDuration, labelledObserver, startSpan, traceFields, type TraceHeaders } from '@lore/platform/telemetry';

const observeHttp = labelledObserver(httpRequestDuration);

interface RequestTrace {
  readonly span: Span;
  readonly context: Context;
  /** The route template, read once: Fastify builds a new `routeOptions` object on every read. */
  readonly route: string;
}

const traces = new WeakMap<FastifyRequest, RequestTrace>();

/** Label of a request Fastify matched to no route: one value, so unknown URLs add no series. */
export const UNMATCHED_ROUTE = '(unmatched)';

/**
 * A server span per HTTP request, continuing the caller's trace when it sends a W3C
 * `traceparent`, active while the route runs (so the messages it sends carry it, and its log
 * lines name it), ended with the response; and the latency histogram by method, route
 * template (never the raw URL: ids and query strings would make the series unbounded) and
 * status.
 */
export function observeRequests(app: FastifyInstance): void {
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url ?? UNMATCHED_ROUTE;
    const trace = startSpan(`${request.method} ${route}`, {
      kind: SpanKind.SERVER,
      parent: contextFromTraceHeaders(traceHeaders(request)),
      attributes: { 'http.request.method': request.method, 'http.route': route },
    });
    traces.set(request, { ...trace, route });
    otelContext.with(trace.context, done);
  });
  // Body parsing may end in the socket's callbacks, outside the context entered above: enter it
  // again right before the handler, which Fastify calls from this hook's `done`. Only then:
  // where the context came along (Fastify's parser runs in an AsyncResource made inside it),
  // entering it again would cost every request a context switch for nothing.
  app.addHook('preHandler', (request, _reply, done) => {
    const trace = traces.get(request);
    if (trace === undefined || otelContext.active() === trace.context) return done();
    otelContext.with(trace.context, done);
  });
  // A callback hook, not an async one: this runs for every request.
  app.addHook('onResponse', (request, reply, done) => {
    const trace = traces.get(request);
    const route = trace?.route ?? request.routeOptions.url ?? UNMATCHED_ROUTE;
    const status = String(reply.statusCode);
    observeHttp({ method: request.method, route, status }, `${request.method} ${route} ${status}`, reply.elapsedTime / 1000);
    if (trace !== undefined) {
      trace.span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) trace.span.setStatus({ code: SpanStatusCode.ERROR });
      trace.span.end();
    }
    done();
  });
}

/** `trace_id` and `span_id` of a request's span, for the line logged once it is answered. */
export function requestTraceFields(request: FastifyRequest): { trace_id?: string; span_id?: string } {
  return traceFields(traces.get(request)?.span);
}

/** The caller's trace headers; undefined without a `traceparent` (the trace starts here, whatever `tracestate` says). */
function traceHeaders(request: FastifyRequest): TraceHeaders | undefined {
  const traceparent = single(request.headers['traceparent']);
  if (traceparent === undefined) return undefined;
  const tracestate = single(request.headers['tracestate']);
  return { traceparent, ...(tracestate === undefined ? {} : { tracestate }) };
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
