import { z } from 'zod';
import { defineMessage } from '@lore/platform/kernel';
import { INTEGRATION_KINDS, INTEGRATION_STATUSES, IntegrationRecord, ProviderModelRecord } from './integrations.records';

/** The catalog and the provider models: reference data the connections service serves. */
export const integrationMessages = {
  list: defineMessage(
    'connections.query.list-integrations',
    z.object({
      category: z.string().min(1).max(100).optional(),
      status: z.enum(INTEGRATION_STATUSES).optional(),
      tags: z.array(z.string().min(1).max(100)).max(50).optional(),
      type: z.enum([...INTEGRATION_KINDS, 'all']).default('all'),
    }),
    z.object({ items: z.array(IntegrationRecord) }),
  ),
  get: defineMessage('connections.query.get-integration', z.object({ integrationId: z.string().min(1).max(100) }), IntegrationRecord),
  providerModels: defineMessage(
    'connections.query.provider-models',
    z.object({ providerId: z.string().min(1).max(100), modelType: z.string().min(1).max(50).optional() }),
    z.object({ models: z.array(ProviderModelRecord) }),
  ),
};
export type IntegrationMessages = typeof integrationMessages;
