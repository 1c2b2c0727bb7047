import { integrationEvents } from '@lore/platform/http';
import { ApiKeyIntegrationEvent } from '@lore/keys/contracts';

/** What keys publishes (api-key-events.publisher.ts), described for `/asyncapi.json`. */
export const keysIntegrationEvents = integrationEvents({
  name: 'ApiKeyIntegrationEvent',
  schema: ApiKeyIntegrationEvent,
  description: 'An API key was issued or revoked. The key id only: never the secret or its hash.',
  published: {
    'api_key.created': 'An API key was created in the workspace.',
    'api_key.revoked': 'An API key was revoked; it authenticates nothing from then on.',
  },
});
