import pino, { type DestinationStream, type Logger } from 'pino';
import type { EventFeed, Transport } from '@lore/platform/transport/port';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { connectNatsTransport, jetStreamEventFeed, kvRateBucketStore } from '@lore/platform/transport/nats';
import type { RateBucketStore } from '@lore/platform/kernel';
import { activeTraceFields } from '@lore/platform/telemetry';
import type { LoreConfig } from './config';
import { instrumentedTransport } from './instrumented-transport';

/**
 * Logs never carry secrets or memory text: tokens and bodies are redacted wherever they could appear.
 * Every line logged inside a traced piece of work (a request, a served message, a processor's
 * batch) carries `trace_id` and `span_id`; a line that names them itself keeps its own.
 */
export function createLogger(config: Pick<LoreConfig, 'logLevel'>, name: string, destination?: DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    name,
    level: config.logLevel,
    mixin: (merged) => ('trace_id' in merged ? {} : activeTraceFields()),
    redact: { paths: ['req.headers.authorization', 'authorization', 'token', 'secret', 'key', 'body', 'memory'], censor: '[redacted]' },
  };
  return destination === undefined ? pino(options) : pino(options, destination);
}

/** NATS when NATS_URL is set and the process is one of several; in-process otherwise. */
export async function openTransport(config: LoreConfig, logger: Logger, topology: 'standalone' | 'distributed', name: string): Promise<Transport> {
  const onError = (error: unknown): void => logger.error({ err: error }, 'transport error');
  if (topology === 'standalone') return instrumentedTransport(createInProcessTransport({ onError }));
  if (!config.natsUrl) throw new Error(`${name} runs in the distributed topology and needs NATS_URL`);
  const eventStream = { subjectPrefix: config.natsSubjectPrefix, maxAgeHours: config.eventsStreamMaxAgeHours };
  return instrumentedTransport(prefixSubjects(await connectNatsTransport({ url: config.natsUrl, name, onError, eventStream }), config.natsSubjectPrefix));
}

/**
 * The integration events as a readable log, in the distributed topology: the JetStream stream
 * the NATS transport publishes to (the standalone app opens its SQLite feed itself).
 */
export function openDistributedEventFeed(config: LoreConfig, name: string): EventFeed {
  if (!config.natsUrl) throw new Error(`${name} runs in the distributed topology and needs NATS_URL`);
  return jetStreamEventFeed({ url: config.natsUrl, subjectPrefix: config.natsSubjectPrefix, name: `${name}-feed` });
}

/**
 * The rate-limit buckets every gateway process shares, in the distributed topology: a
 * JetStream key-value bucket on the same NATS (the standalone gateway keeps them in memory).
 */
export function openDistributedRateBuckets(config: LoreConfig, name: string): RateBucketStore {
  if (!config.natsUrl) throw new Error(`${name} runs in the distributed topology and needs NATS_URL`);
  return kvRateBucketStore({ url: config.natsUrl, subjectPrefix: config.natsSubjectPrefix, name: `${name}-rate-limits` });
}

/** Several Lore deployments (or test runs) can share one NATS: each lives under its own subject prefix. */
function prefixSubjects(transport: Transport, prefix: string): Transport {
  const p = (subject: string): string => `${prefix}.${subject}`;
  return {
    request: (subject, payload, options) => transport.request(p(subject), payload, options),
    serve: (subject, handler) => transport.serve(p(subject), (payload, context) => handler(payload, { ...context, subject })),
    publish: (subject, payload, options) => transport.publish(p(subject), payload, options),
    subscribe: (subject, handler) => transport.subscribe(p(subject), (payload, context) => handler(payload, { ...context, subject: context.subject.slice(prefix.length + 1) })),
    isReady: () => transport.isReady(),
    close: () => transport.close(),
  };
}
