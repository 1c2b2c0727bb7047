import { z } from 'zod';
import { AppError } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { commaList, offsetEnvelope, offsetPage, skipLimitQuery } from '@lore/platform/http';
import {
  CreateMemoryResponse,
  DeleteMemoryResponse,
  DeleteUserMemoriesResponse,
  MEMORY_TYPES,
  MemoryExportResponse,
  MemoryHistoryResponse,
  MemoryIdParams,
  MemoryRecord,
  MemorySubjects,
  memoryRequestSchemas,
  ReplaceMemoryResponse,
  UserIdQuery,
  type MemoryLimits,
} from '@lore/memory/contracts';
import type { RequestScope } from '../auth/caller';
import { route, type GatewayRoute } from '../http/gateway-route';

/**
 * Memory ownership (SPEC §5.4): a JWT caller is the user `sub`, and naming another user is
 * 403; an API-key caller acts for the `user_id` it passes, which it must pass.
 */
function owner(scope: RequestScope, userId: string | null | undefined, location: 'body' | 'query'): string {
  if (scope.caller.kind === 'user') {
    if (userId !== undefined && userId !== null && userId !== scope.caller.userId) {
      throw new AppError('forbidden', 'user_id must be the authenticated user');
    }
    return scope.caller.userId;
  }
  if (userId === undefined || userId === null || userId === '') {
    throw new AppError('validation', 'user_id is required', [{ loc: [location, 'user_id'], msg: 'Field required', type: 'missing' }]);
  }
  return userId;
}

const ListMemoriesQuery = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
  user_id: z.string().min(1).max(255).optional(),
  memory_type: z.enum(MEMORY_TYPES).optional(),
  topics: commaList.optional().describe('Comma-separated: memories having every listed topic'),
  search: z.string().min(1).max(1000).optional().describe('Case-insensitive substring of the memory text'),
  sort_by: z.enum(['created_at', 'updated_at']).default('created_at'),
  sort_order: z.enum(['asc', 'desc']).default('desc'),
  cursor: z.string().min(1).max(2000).optional().describe('next_cursor of the previous page; takes precedence over skip'),
});

export function memoryRoutes(transport: Transport, limits: MemoryLimits): GatewayRoute[] {
  const { createBody, replaceBody } = memoryRequestSchemas(limits);
  const ask = <R>(subject: string, payload: object, scope: RequestScope): Promise<R> =>
    transport.request<R>(subject, { workspaceId: scope.workspaceId, actor: scope.actor, ...payload }, { requestId: scope.requestId });
  const common = { tags: ['Memories'], auth: true } as const;

  return [
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
      handle: ({ body, scope }) =>
        ask(MemorySubjects.create, {
          userId: owner(scope, body.user_id, 'body'),
          memory: body.memory,
          memoryType: body.memory_type ?? 'user',
          topics: body.topics ?? null,
          metadata: body.metadata ?? null,
        }, scope),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/memories',
      operationId: 'list_memories',
      summary: "List a user's memories",
      permission: ['memories', 'read'],
      query: ListMemoriesQuery,
      status: 200,
      response: offsetEnvelope(MemoryRecord),
      errors: [403],
      handle: async ({ query, scope }) => {
        const page = await ask<{ items: unknown[]; total: number; nextCursor: string | null }>(MemorySubjects.list, {
          userId: owner(scope, query.user_id, 'query'),
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          skip: query.skip,
          limit: query.limit,
          ...(query.memory_type ? { memoryType: query.memory_type } : {}),
          ...(query.topics && query.topics.length > 0 ? { topics: query.topics } : {}),
          ...(query.search ? { search: query.search } : {}),
          ...(query.cursor ? { cursor: query.cursor } : {}),
        }, scope);
        return offsetPage({ items: page.items, total: page.total, skip: query.cursor ? 0 : query.skip, limit: query.limit, nextCursor: page.nextCursor });
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
      errors: [403],
      handle: ({ query, scope }) => ask(MemorySubjects.deleteAllOfUser, { userId: owner(scope, query.user_id, 'query') }, scope),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/memories/export',
      operationId: 'export_user_memories',
      summary: "Export every memory of a user with its history, as JSON",
      permission: ['memories', 'read'],
      query: UserIdQuery,
      status: 200,
      response: MemoryExportResponse,
      errors: [403],
      handle: ({ query, scope }) => ask(MemorySubjects.export, { userId: owner(scope, query.user_id, 'query') }, scope),
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
      handle: ({ params, query, scope }) =>
        ask(MemorySubjects.get, { userId: owner(scope, query.user_id, 'query'), memoryId: params.memory_id }, scope),
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
      handle: ({ params, query, scope }) =>
        ask(MemorySubjects.history, { userId: owner(scope, query.user_id, 'query'), memoryId: params.memory_id }, scope),
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
      handle: ({ params, body, scope }) =>
        ask(MemorySubjects.replace, {
          userId: owner(scope, body.user_id, 'body'),
          memoryId: params.memory_id,
          memory: body.memory,
          topics: body.topics ?? null,
          metadata: body.metadata ?? null,
        }, scope),
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
      errors: [403, 404],
      handle: ({ params, query, scope }) =>
        ask(MemorySubjects.delete, { userId: owner(scope, query.user_id, 'query'), memoryId: params.memory_id }, scope),
    }),
  ];
}
