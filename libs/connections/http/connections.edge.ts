import { defineEdge } from '@lore/platform/http';
import { connectionsConfig } from '@lore/connections/contracts';
import { integrationRoutes } from './integrations.routes';

/** The connections context's edge: so far the catalog and the provider models. */
export const connectionsEdge = defineEdge({
  name: 'connections',
  config: connectionsConfig,
  routes: () => integrationRoutes(),
});
