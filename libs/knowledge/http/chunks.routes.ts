import { z } from 'zod';
import { cursorEnvelope, cursorPage, queryBoolean, route, type HttpRoute } from '@lore/platform/http';
import { ChunkId, ChunkRecord, CollectionId, ContentId, jsonObject, type KnowledgeMessages } from '@lore/knowledge/contracts';
import { knowledgeScope } from './knowledge-scope';
import { DeletedResponse } from './deletion-reply';

const ChunkParams = z.object({ chunk_id: ChunkId });
const ListChunksQuery = z.object({
  collection_id: CollectionId.optional(),
  content_id: ContentId.optional(),
  cursor: z.string().min(1).max(500).optional().describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  include_embedding: queryBoolean.default(false),
});
const GetChunkQuery = z.object({ include_embedding: queryBoolean.default(false) });
const UpdateChunkBody = z
  .object({ content: z.string().min(1).max(100_000).optional().describe('New text: re-embedded before the response'), metadata: jsonObject.optional().describe('Replaces the chunk\'s metadata') })
  .refine((b) => b.content !== undefined || b.metadata !== undefined, { message: 'Send content, metadata or both' });

/** Chunks (SPEC §4.3): list and update also at `/chunks`; get and delete. */
export function chunkRoutes(messages: KnowledgeMessages): HttpRoute[] {
  const common = { tags: ['Chunks'], auth: true } as const;
  const list = (path: string, operationId: string): HttpRoute =>
    route({
      ...common,
      method: 'GET',
      path,
      operationId,
      summary: 'List chunks (cursor pages, in content and position order)',
      permission: ['collections', 'read'],
      query: ListChunksQuery,
      status: 200,
      response: cursorEnvelope('chunks', ChunkRecord),
      errors: [404],
      handle: async ({ query, scope, send }) => {
        // Fetched in sub-pages: 500 chunks with their vectors is megabytes, more than one NATS
        // message carries (1 MiB by default). The last sub-page's cursor continues the page.
        const subPage = query.include_embedding ? 50 : 200;
        const items: ChunkRecord[] = [];
        let cursor = query.cursor;
        let nextCursor: string | null = null;
        do {
          const page = await send(messages.listChunks, {
            ...knowledgeScope(scope),
            limit: Math.min(subPage, query.limit - items.length),
            includeEmbedding: query.include_embedding,
            collectionId: query.collection_id,
            contentId: query.content_id,
            cursor,
          });
          items.push(...page.items);
          nextCursor = page.nextCursor;
          cursor = nextCursor ?? undefined;
        } while (nextCursor !== null && items.length < query.limit);
        return cursorPage('chunks', items, nextCursor);
      },
    });
  const update = (path: string, operationId: string): HttpRoute =>
    route({
      ...common,
      method: 'PATCH',
      path,
      operationId,
      summary: 'Update a chunk: new content is re-embedded and searchable when this returns',
      permission: ['collections', 'write'],
      params: ChunkParams,
      body: UpdateChunkBody,
      status: 200,
      response: ChunkRecord,
      errors: [404, 409],
      handle: async ({ params, body, scope, send }) =>
        send(messages.updateChunk, {
          ...knowledgeScope(scope),
          chunkId: params.chunk_id,
          content: body.content,
          metadata: body.metadata,
        }),
    });
  return [
    list('/api/v1/chunks', 'list_chunks'),
    list('/chunks', 'list_chunks_unprefixed'),
    update('/api/v1/chunks/:chunk_id', 'update_chunk'),
    update('/chunks/:chunk_id', 'update_chunk_unprefixed'),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/chunks/:chunk_id',
      operationId: 'get_chunk',
      summary: 'Get a chunk',
      permission: ['collections', 'read'],
      params: ChunkParams,
      query: GetChunkQuery,
      status: 200,
      response: ChunkRecord,
      errors: [404],
      handle: async ({ params, query, scope, send }) => send(messages.getChunk, { ...knowledgeScope(scope), chunkId: params.chunk_id, includeEmbedding: query.include_embedding }),
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/chunks/:chunk_id',
      operationId: 'delete_chunk',
      summary: 'Delete a chunk',
      permission: ['collections', 'write'],
      params: ChunkParams,
      status: 200,
      response: DeletedResponse,
      errors: [404, 409],
      handle: async ({ params, scope, send }) => {
        await send(messages.deleteChunk, { ...knowledgeScope(scope), chunkId: params.chunk_id });
        return { id: params.chunk_id, message: 'Chunk deleted' };
      },
    }),
  ];
}
