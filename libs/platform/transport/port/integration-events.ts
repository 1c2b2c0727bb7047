import type { Transport } from './transport.port';

/**
 * Integration events (what downstream systems see) travel on
 * `events.<context>.<type>.<workspace token>` (e.g. `events.memory.created.acme`), below the
 * deployment's subject prefix, so a consumer takes one workspace with `events.*.*.<token>`
 * or everything with `events.>`. The message id is the event id: a republish (a reactor
 * retried after a crash) is dropped by a durable transport within its duplicate window,
 * and consumers de-duplicate older repeats by `event_id`.
 */
export const INTEGRATION_EVENTS_TOKEN = 'events';

export interface IntegrationEventEnvelope {
  /** `<context>.<type>`, two tokens: `memory.created`, `api_key.revoked`. */
  readonly type: string;
  readonly event_id: string;
  readonly workspace_id: string;
}

const EVENT_TYPE = /^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$/;
const encoder = new TextEncoder();
/** Bytes a token carries as they are (`[A-Za-z0-9-]`); every other byte is %-escaped, `_` included. */
const isPlain = (b: number): boolean => (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || b === 0x2d;
/** A workspace id is never empty once authenticated; a stray one still needs a valid token. */
const NO_WORKSPACE = '_';

export function integrationEventSubject(event: Pick<IntegrationEventEnvelope, 'type' | 'workspace_id'>): string {
  if (!EVENT_TYPE.test(event.type)) throw new Error(`integration event type ${JSON.stringify(event.type)} is not <context>.<type>`);
  return `${INTEGRATION_EVENTS_TOKEN}.${event.type}.${workspaceToken(event.workspace_id)}`;
}

export async function publishIntegrationEvent(transport: Transport, event: IntegrationEventEnvelope): Promise<void> {
  await transport.publish(integrationEventSubject(event), event, { messageId: event.event_id });
}

/**
 * A reactor's batch, published together and awaited together: each publish is on the wire
 * (or in the standalone feed's queue) before the next starts, so order holds, while the
 * acknowledgements overlap (one round trip per batch, not per event; one SQLite commit).
 * Rejects if any is not stored: the reactor retries the batch, and duplicates are dropped by id.
 */
export async function publishIntegrationEvents(transport: Transport, events: readonly IntegrationEventEnvelope[]): Promise<void> {
  await Promise.all(events.map((event) => publishIntegrationEvent(transport, event)));
}

/**
 * A workspace id as one NATS token: percent-encoding of its UTF-8 bytes, keeping only
 * `[A-Za-z0-9-]` (no `.`, `*`, `>`, whitespace), so `acme-prod` reads as itself and
 * `decodeURIComponent` gives the id back. Injective: `_` (empty id) is never an output otherwise.
 */
export function workspaceToken(workspaceId: string): string {
  if (workspaceId === '') return NO_WORKSPACE;
  let token = '';
  for (const byte of encoder.encode(workspaceId)) {
    token += isPlain(byte) ? String.fromCharCode(byte) : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return token;
}

export function workspaceOfToken(token: string): string {
  return token === NO_WORKSPACE ? '' : decodeURIComponent(token);
}
