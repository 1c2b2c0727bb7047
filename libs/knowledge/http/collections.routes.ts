import { z } from 'zod';
import { commaList, offsetEnvelope, offsetPage, route, skipLimitQuery, type HttpRoute } from '@lore/platform/http';
import { CollectionId, CollectionRecord, collectionFields, SearchRequestFields, SearchResponse, VISIBILITIES, type KnowledgeMessages } from '@lore/knowledge/contracts';
import { knowledgeScope } from './knowledge-scope';
import { DeletedResponse, ERASURE_UNDER_WAY, deletionReply } from './deletion-reply';

const CollectionParams = z.object({ collection_id: CollectionId });
const ListCollectionsQuery = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
  status: z.string().max(50).optional(),
  visibility: z.enum(VISIBILITIES).optional(),
  search: z.string().min(1).max(255).optional().describe('Case-insensitive substring of the name or description'),
  tags: commaList.pipe(z.array(z.string().max(100)).max(50)).optional().describe('Comma-separated: collections having every listed tag'),
});
const CreateCollectionBody = z.object(collectionFields);
const UpdateCollectionBody = z.object({ ...collectionFields, name: collectionFields.name.optional() });
const SearchBody = z.object(SearchRequestFields);

/** A collection body's fields but its name, as the collection messages name them (`stats` is ignored). */
function collectionChanges(body: z.output<typeof UpdateCollectionBody>) {
  return {
    description: body.description,
    storeType: body.store_type,
    visibility: body.visibility,
    status: body.status,
    tags: body.tags,
    parentId: body.parent_id,
    metaData: body.meta_data,
    settings: body.settings,
    embedding: body.embedding,
    sourceType: body.source_type,
    sourceId: body.source_id,
  };
}

/** SPEC §4.2, plus get, update and delete of one collection. */
export function collectionRoutes(messages: KnowledgeMessages): HttpRoute[] {
  const common = { tags: ['Collections'], auth: true } as const;
  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/collections',
      operationId: 'create_collection',
      summary: 'Create a collection',
      permission: ['collections', 'write'],
      body: CreateCollectionBody,
      status: 201,
      response: CollectionRecord,
      errors: [403],
      handle: async ({ body, scope, send }) => send(messages.createCollection, { ...knowledgeScope(scope), ...collectionChanges(body), name: body.name }),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/collections',
      operationId: 'list_collections',
      summary: 'List collections',
      permission: ['collections', 'read'],
      query: ListCollectionsQuery,
      status: 200,
      response: offsetEnvelope(CollectionRecord),
      handle: async ({ query, scope, send }) => {
        const page = await send(messages.listCollections, {
          ...knowledgeScope(scope),
          skip: query.skip,
          limit: query.limit,
          status: query.status,
          visibility: query.visibility,
          search: query.search,
          tags: query.tags?.length ? query.tags : undefined,
        });
        return offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit });
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/collections/search',
      operationId: 'search_collection',
      summary: 'Search a collection (vector, keyword or hybrid)',
      permission: ['collections', 'read'],
      body: SearchBody,
      status: 200,
      response: SearchResponse,
      errors: [404, 502, 503, 504],
      handle: async ({ body, scope, send }) => {
        const { results, executionTimeMs, rerank } = await send(messages.search, {
          ...knowledgeScope(scope),
          query: body.query,
          collectionId: body.collection_id,
          searchType: body.search_type,
          filters: body.filters ?? null,
          maxResults: body.max_results,
          fusion: body.fusion ?? null,
          rerank: body.rerank ?? null,
        });
        return { results, total_results: results.length, query: body.query, search_type: body.search_type, collection_id: body.collection_id, execution_time_ms: executionTimeMs, rerank };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/collections/:collection_id',
      operationId: 'get_collection',
      summary: 'Get a collection',
      permission: ['collections', 'read'],
      params: CollectionParams,
      status: 200,
      response: CollectionRecord,
      errors: [404],
      handle: async ({ params, scope, send }) => send(messages.getCollection, { ...knowledgeScope(scope), collectionId: params.collection_id }),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/v1/collections/:collection_id',
      operationId: 'update_collection',
      summary: 'Update a collection (a new embedding model re-indexes in the background)',
      permission: ['collections', 'write'],
      params: CollectionParams,
      body: UpdateCollectionBody,
      status: 200,
      response: CollectionRecord,
      errors: [404],
      handle: async ({ params, body, scope, send }) =>
        send(messages.updateCollection, { ...knowledgeScope(scope), ...collectionChanges(body), name: body.name, collectionId: params.collection_id }),
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/collections/:collection_id',
      operationId: 'delete_collection',
      summary: 'Delete a collection with its contents, chunks and vectors',
      permission: ['collections', 'write'],
      params: CollectionParams,
      status: 200,
      response: DeletedResponse,
      accepted: ERASURE_UNDER_WAY,
      errors: [404],
      handle: async ({ params, scope, send }) => {
        const { erasing } = await send(messages.deleteCollection, { ...knowledgeScope(scope), collectionId: params.collection_id });
        return deletionReply(params.collection_id, 'Collection', erasing);
      },
    }),
  ];
}
