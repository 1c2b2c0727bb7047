import { INTEGRATION_EVENTS_TOKEN } from '@lore/platform/transport/port';
import { buildAsyncApiDocument, type AsyncApiDocument, type AsyncApiServer, type IntegrationEventsSpec } from '@lore/platform/http';

/** The runtime's default NATS_SUBJECT_PREFIX, for a gateway configured without one (tests). */
const DEFAULT_SUBJECT_PREFIX = 'lore';

const DESCRIPTION = [
  'Integration events Lore publishes for downstream systems, at least once, after the change is stored.',
  'Subjects are `<NATS_SUBJECT_PREFIX>.events.<type>.<workspace token>`: subscribe to `<prefix>.events.>` for everything,',
  'or `<prefix>.events.*.*.<token>` for one workspace. In the distributed topology they are kept in the JetStream stream',
  '`<PREFIX>_EVENTS`. The NATS message id is the `event_id`, so a republish is dropped within the duplicate window;',
  'consumers de-duplicate older repeats by `event_id`. Payloads carry ids, never content: fetch what you may read over HTTP.',
].join(' ');

/**
 * Where events go, from NATS_URL: host and port only, since the URL may carry credentials.
 * Without one (standalone: events stay in the process) the host is a variable to fill in.
 */
export function natsServers(natsUrl: string | undefined): Record<string, AsyncApiServer> {
  const hosts = (natsUrl ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      try {
        return new URL(entry.includes('://') ? entry : `nats://${entry}`).host;
      } catch {
        return '';
      }
    })
    .filter((host) => host !== '');
  if (hosts.length === 0) {
    return {
      nats: {
        host: '{host}',
        protocol: 'nats',
        description: 'The deployment\'s NATS (NATS_URL). This process has none: in the standalone topology integration events stay in the process.',
        variables: { host: { default: 'localhost:4222', description: 'host:port of the NATS server' } },
      },
    };
  }
  return Object.fromEntries(hosts.map((host, i) => [i === 0 ? 'nats' : `nats-${i + 1}`, { host, protocol: 'nats' as const, description: 'The deployment\'s NATS (NATS_URL).' }]));
}

/** The `/asyncapi.json` document for this gateway's contexts, deployment prefix and NATS. */
export function gatewayAsyncApiDocument(
  config: { readonly natsUrl?: string | undefined; readonly natsSubjectPrefix?: string },
  edges: readonly { readonly name: string; readonly events?: readonly IntegrationEventsSpec[] }[],
): AsyncApiDocument {
  return buildAsyncApiDocument({
    title: 'Lore integration events',
    version: '0.1.0',
    description: DESCRIPTION,
    subjectPrefix: `${config.natsSubjectPrefix ?? DEFAULT_SUBJECT_PREFIX}.${INTEGRATION_EVENTS_TOKEN}`,
    servers: natsServers(config.natsUrl),
    contexts: edges,
  });
}
