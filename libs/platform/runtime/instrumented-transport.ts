import type { Transport } from '@lore/platform/transport/port';
import { context as otelContext } from '@opentelemetry/api';
import { activeTraceHeaders, QuotaExceededError } from '@lore/platform/kernel';
import { SpanKind, contextFromTraceHeaders, countQuotaRefusal, errorCode, inSpan, isActiveTrace, labelledObserver, secondsSince, spansRecorded, transportRequestDuration } from '@lore/platform/telemetry';

const observeTransport = labelledObserver(transportRequestDuration);

/**
 * Measures and traces request/reply messages, around any transport: the client side (a span
 * per request whose `traceparent` travels with the message, and its latency), and the server
 * side (a span continuing the caller's trace, so the events a handler appends carry it, and
 * the handling time). Subjects are message names (`memory.command.create`), a bounded set;
 * the outcome is `ok` or the error code the caller receives. Spans only where they are
 * recorded (an exporter is configured): otherwise the trace context alone travels.
 */
export function instrumentedTransport(transport: Transport): Transport {
  return {
    request: (subject, payload, options) => {
      const started = process.hrtime.bigint();
      if (!spansRecorded()) return measured('client', subject, started, () => transport.request(subject, payload, { ...options, trace: activeTraceHeaders() }));
      return inSpan(`send ${subject}`, { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject } }, () =>
        measured('client', subject, started, () => transport.request(subject, payload, { ...options, trace: activeTraceHeaders() })),
      );
    },
    serve: (subject, handler) =>
      transport.serve(subject, (payload, context) => {
        const started = process.hrtime.bigint();
        if (!spansRecorded()) {
          // No span to record: continue the caller's trace (its ids reach log lines and events) unless it is already the active one.
          const traceparent = context.trace?.traceparent;
          const run = (): Promise<unknown> => measured('server', context.subject, started, () => handler(payload, context));
          return traceparent === undefined || isActiveTrace(traceparent) ? run() : otelContext.with(contextFromTraceHeaders(context.trace), run);
        }
        return inSpan(
          `serve ${context.subject}`,
          { kind: SpanKind.SERVER, parent: contextFromTraceHeaders(context.trace), attributes: { 'messaging.system': 'nats', 'messaging.destination.name': context.subject } },
          () => measured('server', context.subject, started, () => handler(payload, context)),
        );
      }),
    publish: (subject, payload, options) => transport.publish(subject, payload, options),
    subscribe: (subject, handler) => transport.subscribe(subject, handler),
    isReady: () => transport.isReady(),
    close: () => transport.close(),
  };
}

/**
 * Times one message into the transport histogram, by its outcome. Chained with `then` rather
 * than an async function with `finally`: it wraps every message twice (client and server
 * side), and each async frame costs promises, which the request context's async hooks see.
 */
function measured<T>(side: 'client' | 'server', subject: string, started: bigint, work: () => Promise<T>): Promise<T> {
  const failed = (error: unknown): never => {
    const outcome = outcomeOf(error);
    // Counted where the quota is enforced: the service owning the data (in standalone, the one process).
    if (side === 'server' && error instanceof QuotaExceededError) countQuotaRefusal(error.quota);
    observeTransport({ side, subject, outcome }, `${side} ${subject} ${outcome}`, secondsSince(started));
    throw error;
  };
  let pending: Promise<T>;
  try {
    pending = work();
  } catch (error) {
    return Promise.reject(error as Error).catch(failed);
  }
  return pending.then((result) => {
    observeTransport({ side, subject, outcome: 'ok' }, `${side} ${subject} ok`, secondsSince(started));
    return result;
  }, failed);
}

/** An AppError's code (a fixed set); `internal` for anything else, as callers see it. */
function outcomeOf(error: unknown): string {
  const code = errorCode(error);
  return code !== undefined && /^[a-z_]{1,32}$/.test(code) ? code : 'internal';
}
