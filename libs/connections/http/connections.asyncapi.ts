import { integrationEvents } from '@lore/platform/http';
import { ConnectionIntegrationEvent } from '@lore/connections/contracts';

/** What connections publishes (connection-events.publisher.ts), described for `/asyncapi.json`. */
export const connectionsIntegrationEvents = integrationEvents({
  name: 'ConnectionIntegrationEvent',
  schema: ConnectionIntegrationEvent,
  description: 'A connection to an external integration changed. Ids, the integration and status changes; never a credential or the configuration (it may name internal hosts).',
  published: {
    'connection.created': 'A connection was created.',
    'connection.updated': 'A connection\'s label, configuration, auth method or credential changed; `credential_rotated` says whether a new credential replaced the old one.',
    'connection.status_changed': 'A connection\'s status changed: a test started or ended, it was activated or deactivated, or the periodic health check found it failing, expired (its refresh token refused) or recovered; `status` holds from, to and the reason.',
    'connection.deleted': 'A connection was deleted and its credential released.',
  },
});
