import { defineContext } from '@lore/platform/cqrs';
import { handle } from '@lore/platform/transport/port';
import { connectionsConfig, integrationMessages } from '@lore/connections/contracts';
import { IntegrationQueries } from './integrations.queries';

/** The connections context: the integration catalog and the provider models. */
export const connectionsContext = defineContext({
  name: 'connections',
  config: connectionsConfig,
  build() {
    const integrations = new IntegrationQueries();
    return {
      handlers: [
        handle(integrationMessages.list, (q) => integrations.list(q)),
        handle(integrationMessages.get, (q) => integrations.get(q)),
        handle(integrationMessages.providerModels, (q) => integrations.providerModels(q)),
      ],
      projections: [],
      reactors: [],
    };
  },
});
