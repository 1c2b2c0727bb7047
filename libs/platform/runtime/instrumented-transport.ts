import type { Transport } from '@lore/platform/transport/port';
import { QuotaExceededError } from '@lore/platform/kernel';
import { SpanKind, contextFromTraceHeaders, countQuotaRefusal, currentTraceHeaders, inSpan, secondsSince, transportRequestDuration } from '@lore/platform/telemetry';

/**
 * Measures and traces request/reply messages, around any transport: the client side (a span
 * per request whose `traceparent` travels with the message, and its latency), and the server
 * side (a span continuing the caller's trace, so the events a handler appends carry it, and
 * the handling time). Subjects are message names (`memory.command.create`), a bounded set;
 * the outcome is `ok` or the error code the caller receives.
 */
export function instrumentedTransport(transport: Transport): Transport {
  return {
    request: (subject, payload, options) => {
      const started = process.hrtime.bigint();
      return inSpan(`send ${subject}`, { kind: SpanKind.CLIENT, attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject } }, async () => {
        let outcome = 'ok';
        try {
          return await transport.request(subject, payload, { ...options, trace: currentTraceHeaders() });
        } catch (error) {
          outcome = outcomeOf(error);
          throw error;
        } finally {
          transportRequestDuration.observe({ side: 'client', subject, outcome }, secondsSince(started));
        }
      });
    },
    serve: (subject, handler) =>
      transport.serve(subject, (payload, context) => {
        const started = process.hrtime.bigint();
        return inSpan(
          `serve ${context.subject}`,
          { kind: SpanKind.SERVER, parent: contextFromTraceHeaders(context.trace), attributes: { 'messaging.system': 'nats', 'messaging.destination.name': context.subject } },
          async () => {
            let outcome = 'ok';
            try {
              return await handler(payload, context);
            } catch (error) {
              outcome = outcomeOf(error);
              // Counted where the quota is enforced: the service owning the data (in standalone, the one process).
              if (error instanceof QuotaExceededError) countQuotaRefusal(error.quota);
              throw error;
            } finally {
              transportRequestDuration.observe({ side: 'server', subject: context.subject, outcome }, secondsSince(started));
            }
          },
        );
      }),
    publish: (subject, payload, options) => transport.publish(subject, payload, options),
    subscribe: (subject, handler) => transport.subscribe(subject, handler),
    isReady: () => transport.isReady(),
    close: () => transport.close(),
  };
}

/** An AppError's code (a fixed set); `internal` for anything else, as callers see it. */
function outcomeOf(error: unknown): string {
  return typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string' && /^[a-z_]{1,32}$/.test(error.code) ? error.code : 'internal';
}
