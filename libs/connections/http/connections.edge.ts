import { defineEdge } from '@lore/platform/http';
import { connectionsConfig } from '@lore/connections/contracts';
import { integrationRoutes } from './integrations.routes';
import { connectionRoutes } from './connection.routes';
import { webhookRoutes } from './webhook.routes';
import { connectRoutes } from './connect.routes';
import { connectionsIntegrationEvents } from './connections.asyncapi';

/** The connections context's edge: the catalog, the provider models, the connections and the webhooks. */
export const connectionsEdge = defineEdge({
  name: 'connections',
  config: connectionsConfig,
  events: [connectionsIntegrationEvents],
  routes: (config) => [...integrationRoutes(), ...connectionRoutes(config), ...connectRoutes(config), ...webhookRoutes()],
});
