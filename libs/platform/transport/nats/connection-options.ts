import type { ConnectionOptions } from 'nats';

/**
 * How every Lore process connects to NATS: reconnecting forever (a service outlives NATS
 * restarts; readiness reports the gap instead of the process dying), and without nats.js's
 * async traces. Those capture a stack (an Error) for every request, JetStream publish and
 * key-value operation, a measurable part of a request's CPU, only to append it to a failure's
 * stack; Lore turns NATS failures into AppErrors by their code and never shows that stack.
 */
export function natsConnectionOptions(url: string, name: string | undefined): ConnectionOptions {
  return { servers: url, maxReconnectAttempts: -1, noAsyncTraces: true, ...(name === undefined ? {} : { name }) };
}
