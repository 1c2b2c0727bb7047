import { z } from 'zod';
import { commaList, route, type HttpRoute } from '@lore/platform/http';
import { INTEGRATION_KINDS, INTEGRATION_STATUSES, integrationMessages, IntegrationRecord, ProviderModelRecord } from '@lore/connections/contracts';

const ListIntegrationsQuery = z.object({
  category: z.string().min(1).max(100).optional().describe('e.g. communication, productivity, crm, storage, developer_tools, databases, model_providers, vector_stores, mcp, custom'),
  status: z.enum(INTEGRATION_STATUSES).optional(),
  tags: commaList.pipe(z.array(z.string().min(1).max(100)).max(50)).optional().describe('Comma-separated: entries having every listed tag'),
  type: z.enum([...INTEGRATION_KINDS, 'all']).default('all'),
});

/** SPEC §4.6: the catalog (authenticated, any permission) and the provider models (open, SPEC §5.2). */
export function integrationRoutes(): HttpRoute[] {
  const common = { tags: ['Integrations'] } as const;
  const list = (path: string, operationId: string) =>
    route({
      ...common,
      auth: true,
      method: 'GET',
      path,
      operationId,
      summary: 'List integration definitions',
      permission: null,
      query: ListIntegrationsQuery,
      status: 200,
      response: z.array(IntegrationRecord),
      handle: async ({ query, send }) => {
        const { items } = await send(integrationMessages.list, {
          type: query.type,
          category: query.category,
          status: query.status,
          tags: query.tags?.length ? query.tags : undefined,
        });
        return items;
      },
    });
  return [
    list('/integrations', 'list_integrations_unprefixed'),
    list('/api/v1/integrations', 'list_integrations'),
    route({
      ...common,
      auth: true,
      method: 'GET',
      path: '/api/v1/integrations/:integration_id',
      operationId: 'get_integration',
      summary: 'Get an integration definition',
      permission: null,
      params: z.object({ integration_id: z.string().min(1).max(100) }),
      status: 200,
      response: IntegrationRecord,
      errors: [404],
      handle: async ({ params, send }) => send(integrationMessages.get, { integrationId: params.integration_id }),
    }),
    route({
      ...common,
      auth: false,
      method: 'GET',
      path: '/api/v1/integrations/providers/:provider_id/models',
      operationId: 'list_provider_models',
      summary: "List a model provider's models with specifications, pricing and capabilities",
      permission: null,
      params: z.object({ provider_id: z.string().min(1).max(100) }),
      query: z.object({ model_type: z.string().min(1).max(50).optional().describe('chat, embedding, completion, image_generation, audio_transcription, audio_speech, rerank, moderation, …') }),
      status: 200,
      response: z.array(ProviderModelRecord),
      errors: [404],
      handle: async ({ params, query, send }) => {
        const { models } = await send(integrationMessages.providerModels, { providerId: params.provider_id, modelType: query.model_type });
        return models;
      },
    }),
  ];
}
