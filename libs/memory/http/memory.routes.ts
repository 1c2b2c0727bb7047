import { z } from 'zod';
import { RerankOptionsInput, RerankOutcome } from '@lore/platform/kernel';
import { AcceptedReply, actingOwner, commaList, cursorOffsetPage, offsetEnvelope, offsetPage, route, skipLimitQuery, type HttpRoute } from '@lore/platform/http';
import { MEMORY_TYPES, MemoryRecord, MemorySearchHit, MemoryVersion, MemoryWithHistory, memoryFields, memoryMessages, type MemoryExtractionSettings, type MemoryLimits } from '@lore/memory/contracts';
import { extractionRoutes } from './memory-extraction.routes';

const userId = z.string().min(1).max(255);
const MemoryIdParams = z.object({ memory_id: z.string().min(1).max(100) });
const UserIdQuery = z.object({ user_id: userId.optional() });

/** The list query, bounded like the service's message so that every refusal names the query field. */
function listMemoriesQuery(limits: MemoryLimits) {
  return skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
    user_id: userId.optional(),
    memory_type: z.enum(MEMORY_TYPES).optional(),
    topics: commaList
      .pipe(z.array(z.string().max(limits.maxTopicChars)).max(limits.maxTopics))
      .optional()
      .describe('Comma-separated: memories having every listed topic'),
    search: z.string().min(1).max(1000).optional().describe('Case-insensitive substring of the memory text'),
    sort_by: z.enum(['created_at', 'updated_at']).default('created_at'),
    sort_order: z.enum(['asc', 'desc']).default('desc'),
    cursor: z.string().min(1).max(2000).optional().describe('next_cursor of the previous page; takes precedence over skip'),
  });
}

const CreateMemoryResponse = z.object({ memory_id: z.string(), message: z.string(), memory: MemoryRecord });
const ReplaceMemoryResponse = z.object({ memory_id: z.string(), message: z.string(), old_memory: MemoryRecord, new_memory: MemoryRecord });
const DeleteMemoryResponse = z.object({ memory_id: z.string(), message: z.string() });
const DeleteUserMemoriesResponse = z.object({ user_id: z.string(), deleted_count: z.number().int(), message: z.string() });
const ERASURE_UNDER_WAY =
  "Deleted, and gone from every read at once, but its erasure (every version made unreadable and gone from the files) did not finish within the request's wait: a memory of thousands of versions. It goes on by itself. " +
  'Repeat the DELETE to follow it: 202 while it runs, 200 when it finishes within that wait, 404 once nothing of it is left (for every memory of a user: 202 with a count of 0 while theirs run, then 200).';
const MemoryHistoryResponse = z.object({ memory_id: z.string(), versions: z.array(MemoryVersion) });
const MemorySearchResult = MemoryRecord.extend({
  score: z.number().describe("Fused hybrid score (weighted_score: 0.7 · cosine + 0.3 · normalised BM25); the reranker's when re-ranked"),
  scores: MemorySearchHit.shape.scores,
});
const MemorySearchResponse = z.object({
  results: z.array(MemorySearchResult),
  total_results: z.number().int(),
  query: z.string(),
  execution_time_ms: z.number(),
  rerank: RerankOutcome.nullable().describe('The re-ranking step, when the query asked for one'),
});
const MemoryExportResponse = z.object({ user_id: z.string(), workspace_id: z.string(), exported_at: z.string(), memories: z.array(MemoryWithHistory) });

/** Memories over HTTP (SPEC §4.8), plus list, history, bulk delete and export. */
export function memoryRoutes(limits: MemoryLimits, extraction: MemoryExtractionSettings): HttpRoute[] {
  const messages = memoryMessages(limits);
  const { memory, topics, metadata } = memoryFields(limits);
  const createBody = z.object({
    user_id: userId.optional().describe("Owner. Required for API-key callers; a JWT caller may omit it. Naming another user than one's own `sub` (or a key's creator) takes a workspace administrator, or a key one minted: 403 otherwise."),
    memory,
    memory_type: z.enum(MEMORY_TYPES).nullish().describe('Defaults to `user`'),
    topics: topics.nullish(),
    metadata: metadata.nullish(),
    expires_at: z.iso
      .datetime({ offset: true })
      .nullish()
      .describe('When the memory leaves lists and search (at once) and is erased (by the next sweep). Absent: the TTL of its type (MEMORY_TTL_BY_TYPE), if any; null: never.'),
  });
  const replaceBody = z.object({
    memory,
    user_id: userId.nullish(),
    topics: topics.nullish().describe('null or absent keeps the current topics'),
    metadata: metadata.nullish().describe('null or absent keeps the current metadata'),
  });
  const common = { tags: ['Memories'], auth: true } as const;

  return [
    ...extractionRoutes(messages, extraction),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/memories',
      operationId: 'create_memory',
      summary: 'Create a memory',
      permission: ['memories', 'write'],
      body: createBody,
      status: 201,
      response: CreateMemoryResponse,
      errors: [403],
      handle: async ({ body, scope, send }) => {
        const created = await send(messages.create, {
          ...actingOwner(scope, body.user_id, { keyMustName: true }),
          memory: body.memory,
          memoryType: body.memory_type ?? 'user',
          topics: body.topics ?? null,
          metadata: body.metadata ?? null,
          ...(body.expires_at === undefined ? {} : { expiresAt: body.expires_at }),
        });
        return { memory_id: created.memory_id, message: 'Memory created successfully', memory: created };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/memories',
      operationId: 'list_memories',
      summary: "List a user's memories",
      permission: ['memories', 'read'],
      query: listMemoriesQuery(limits),
      status: 200,
      response: offsetEnvelope(MemoryRecord),
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const page = await send(messages.list, {
          ...actingOwner(scope, query.user_id, { keyMustName: true }),
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          skip: query.skip,
          limit: query.limit,
          memoryType: query.memory_type,
          topics: query.topics?.length ? query.topics : undefined,
          search: query.search,
          cursor: query.cursor,
        });
        return query.cursor
          ? cursorOffsetPage({ items: page.items, total: page.total, limit: query.limit, nextCursor: page.nextCursor })
          : offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit, nextCursor: page.nextCursor });
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/memories',
      operationId: 'delete_user_memories',
      summary: 'Permanently delete every memory of a user',
      permission: ['memories', 'write'],
      query: UserIdQuery,
      status: 200,
      response: DeleteUserMemoriesResponse,
      accepted: ERASURE_UNDER_WAY,
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const owner = actingOwner(scope, query.user_id, { keyMustName: true });
        const { deletedCount, erasing } = await send(messages.deleteAllOfUser, owner);
        const reply = { user_id: owner.userId, deleted_count: deletedCount, message: `Deleted ${deletedCount} memories` };
        return erasing === true ? new AcceptedReply({ ...reply, message: `Deleted ${deletedCount} memories; their erasure is under way` }) : reply;
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/memories/export',
      operationId: 'export_user_memories',
      summary: 'Export every memory of a user with its history, as JSON',
      permission: ['memories', 'read'],
      query: UserIdQuery,
      status: 200,
      response: MemoryExportResponse,
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const owner = actingOwner(scope, query.user_id, { keyMustName: true });
        const exported = await send(messages.export, owner);
        return { user_id: owner.userId, workspace_id: owner.workspaceId, exported_at: exported.exportedAt, memories: exported.memories };
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/memories/search',
      operationId: 'search_memories',
      summary: "Search a user's memories (hybrid: meaning and keywords)",
      permission: ['memories', 'read'],
      body: z.object({
        user_id: userId.optional().describe("Whose memories. Required for API-key callers; a JWT caller may omit it (its own). Another user takes a workspace administrator, or a key one minted: 403 otherwise."),
        query: z.string().min(1).max(10_000),
        topics: topics.nullish().describe('Only memories having every listed topic'),
        memory_type: z.enum(MEMORY_TYPES).nullish(),
        limit: z.number().int().min(1).max(100).default(10),
        rerank: RerankOptionsInput.nullish().describe('Re-rank the hits (README: Re-ranking)'),
      }),
      status: 200,
      response: MemorySearchResponse,
      errors: [403, 502, 503, 504],
      handle: async ({ body, scope, send }) => {
        const found = await send(messages.search, {
          ...actingOwner(scope, body.user_id, { keyMustName: true }),
          query: body.query,
          limit: body.limit,
          memoryType: body.memory_type ?? undefined,
          topics: body.topics?.length ? body.topics : undefined,
          rerank: body.rerank ?? null,
        });
        const results = found.results.map((hit) => ({ ...hit.memory, score: hit.score, scores: hit.scores }));
        return { results, total_results: results.length, query: body.query, execution_time_ms: found.executionTimeMs, rerank: found.rerank };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/memories/:memory_id',
      operationId: 'get_memory',
      summary: 'Get a memory (only its owner sees it)',
      permission: ['memories', 'read'],
      params: MemoryIdParams,
      query: UserIdQuery,
      status: 200,
      response: MemoryRecord,
      errors: [403, 404],
      handle: ({ params, query, scope, send }) => send(messages.get, { ...actingOwner(scope, query.user_id, { keyMustName: true }), memoryId: params.memory_id }),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/memories/:memory_id/history',
      operationId: 'get_memory_history',
      summary: 'Every version of a memory, oldest first',
      permission: ['memories', 'read'],
      params: MemoryIdParams,
      query: UserIdQuery,
      status: 200,
      response: MemoryHistoryResponse,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const { versions } = await send(messages.history, { ...actingOwner(scope, query.user_id, { keyMustName: true }), memoryId: params.memory_id });
        return { memory_id: params.memory_id, versions };
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/memories/:memory_id/replace',
      operationId: 'replace_memory',
      summary: 'Replace a memory; returns the old and the new version',
      permission: ['memories', 'write'],
      params: MemoryIdParams,
      body: replaceBody,
      status: 200,
      response: ReplaceMemoryResponse,
      errors: [403, 404, 409],
      handle: async ({ params, body, scope, send }) => {
        const { oldMemory, newMemory } = await send(messages.replace, {
          ...actingOwner(scope, body.user_id, { keyMustName: true }),
          memoryId: params.memory_id,
          memory: body.memory,
          topics: body.topics ?? null,
          metadata: body.metadata ?? null,
        });
        return { memory_id: params.memory_id, message: 'Memory replaced successfully', old_memory: oldMemory, new_memory: newMemory };
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/memories/:memory_id',
      operationId: 'delete_memory',
      summary: 'Permanently delete a memory (cannot be undone)',
      permission: ['memories', 'write'],
      params: MemoryIdParams,
      query: UserIdQuery,
      status: 200,
      response: DeleteMemoryResponse,
      accepted: ERASURE_UNDER_WAY,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const { memoryId, erasing } = await send(messages.delete, { ...actingOwner(scope, query.user_id, { keyMustName: true }), memoryId: params.memory_id });
        if (erasing === true) return new AcceptedReply({ memory_id: memoryId, message: 'Memory deleted; its erasure is under way' });
        return { memory_id: memoryId, message: 'Memory deleted successfully' };
      },
    }),
  ];
}
