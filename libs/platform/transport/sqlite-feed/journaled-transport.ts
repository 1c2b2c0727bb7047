import { INTEGRATION_EVENTS_TOKEN, type IntegrationEvent, type Transport } from '@lore/platform/transport/port';
import type { SqliteEventFeed } from './sqlite-event-feed';

const EVENT_SUBJECTS = `${INTEGRATION_EVENTS_TOKEN}.`;

/**
 * The standalone counterpart of the NATS transport's JetStream stream: a publish on an
 * integration-event subject is stored in the feed first and resolves only once committed (a
 * failure rejects, so the publishing reactor retries), then reaches in-process subscribers.
 */
export function journaledTransport(transport: Transport, feed: SqliteEventFeed): Transport {
  return {
    request: (subject, payload, options) => transport.request(subject, payload, options),
    serve: (subject, handler) => transport.serve(subject, handler),
    // Not async: other subjects pass straight through, without a promise of their own.
    publish(subject, payload, options) {
      if (!subject.startsWith(EVENT_SUBJECTS)) return transport.publish(subject, payload, options);
      return feed.append(payload as IntegrationEvent).then(() => transport.publish(subject, payload, options));
    },
    subscribe: (subject, handler) => transport.subscribe(subject, handler),
    isReady: () => transport.isReady(),
    close: () => transport.close(),
  };
}
