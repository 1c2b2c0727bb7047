import { z } from 'zod';
import { defineEdge } from '@lore/platform/http';
import { apiKeyRoutes } from './api-keys.routes';
import { keysIntegrationEvents } from './api-keys.asyncapi';

/** API keys over HTTP: create (secret shown once), list, get, revoke. */
export const keysEdge = defineEdge({
  name: 'keys',
  config: z.object({}),
  events: [keysIntegrationEvents],
  routes: () => apiKeyRoutes(),
});
