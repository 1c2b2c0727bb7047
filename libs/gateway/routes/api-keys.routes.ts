import { z } from 'zod';
import { AppError } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { offsetEnvelope, offsetPage, skipLimitQuery } from '@lore/platform/http';
import { ApiKeyIdParams, ApiKeyRecord, CreateApiKeyBody, CreatedApiKey, covers, KeysSubjects, type ApiKeyPrincipal } from '@lore/keys/contracts';
import type { Caller } from '../auth/caller';
import { route, type GatewayRoute } from '../http/gateway-route';

const ListApiKeysQuery = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
  status: z.enum(['active', 'inactive', 'revoked']).optional(),
});

/**
 * A caller can hand out only what it holds: a JWT user holds everything in its workspace;
 * an API key its own permissions and collections (an empty collection list means all).
 * Omitted lists inherit the creator's.
 */
function delegated(caller: Caller, body: z.output<typeof CreateApiKeyBody>): { permissions: string[]; collections: string[] } {
  if (caller.kind === 'user') return { permissions: body.permissions ?? ['*'], collections: body.collections ?? [] };
  const parent: ApiKeyPrincipal = caller;
  const permissions = body.permissions ?? parent.permissions;
  const missing = permissions.filter((p) => !covers(parent.permissions, p));
  if (missing.length > 0) throw new AppError('forbidden', `Cannot grant permissions this API key lacks: ${missing.join(', ')}`);
  const collections = body.collections ?? parent.collections;
  if (parent.collections.length > 0) {
    if (collections.length === 0) throw new AppError('forbidden', 'Cannot grant access to all collections: this API key is limited to some');
    const outside = collections.filter((c) => !parent.collections.includes(c));
    if (outside.length > 0) throw new AppError('forbidden', `Cannot grant collections this API key lacks: ${outside.join(', ')}`);
  }
  return { permissions, collections };
}

export function apiKeyRoutes(transport: Transport): GatewayRoute[] {
  return [
    route({
      method: 'POST',
      path: '/api/v1/api-keys',
      operationId: 'create_api_key',
      summary: 'Create an API key (the secret is shown only in this response)',
      tags: ['API keys'],
      auth: true,
      permission: ['api_keys', 'write'],
      body: CreateApiKeyBody,
      status: 201,
      response: CreatedApiKey,
      errors: [403],
      handle: async ({ body, scope }) => {
        const { permissions, collections } = delegated(scope.caller, body);
        const createdBy = scope.caller.kind === 'user' ? scope.caller.userId : scope.caller.createdBy;
        return transport.request(
          KeysSubjects.create,
          {
            workspaceId: scope.workspaceId,
            actor: scope.actor,
            createdBy,
            label: body.label,
            status: body.status,
            expiresAt: body.expires_at ?? null,
            permissions,
            ipWhitelist: body.ip_whitelist ?? [],
            collections,
          },
          { requestId: scope.requestId },
        );
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/api-keys',
      operationId: 'list_api_keys',
      summary: 'List the API keys of the workspace, newest first',
      tags: ['API keys'],
      auth: true,
      permission: ['api_keys', 'read'],
      query: ListApiKeysQuery,
      status: 200,
      response: offsetEnvelope(ApiKeyRecord),
      handle: async ({ query, scope }) => {
        const page = await transport.request<{ items: unknown[]; total: number }>(
          KeysSubjects.list,
          { workspaceId: scope.workspaceId, skip: query.skip, limit: query.limit, ...(query.status ? { status: query.status } : {}) },
          { requestId: scope.requestId },
        );
        return offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit, nextCursor: null });
      },
    }),
    route({
      method: 'GET',
      path: '/api/v1/api-keys/:key_id',
      operationId: 'get_api_key',
      summary: 'Get an API key (never its secret)',
      tags: ['API keys'],
      auth: true,
      permission: ['api_keys', 'read'],
      params: ApiKeyIdParams,
      status: 200,
      response: ApiKeyRecord,
      errors: [403, 404],
      handle: ({ params, scope }) =>
        transport.request(KeysSubjects.get, { workspaceId: scope.workspaceId, actor: scope.actor, keyId: params.key_id }, { requestId: scope.requestId }),
    }),
    route({
      method: 'DELETE',
      path: '/api/v1/api-keys/:key_id',
      operationId: 'revoke_api_key',
      summary: 'Revoke an API key: it stops working at once',
      tags: ['API keys'],
      auth: true,
      permission: ['api_keys', 'write'],
      params: ApiKeyIdParams,
      status: 200,
      response: ApiKeyRecord,
      errors: [403, 404],
      handle: ({ params, scope }) =>
        transport.request(KeysSubjects.revoke, { workspaceId: scope.workspaceId, actor: scope.actor, keyId: params.key_id }, { requestId: scope.requestId }),
    }),
  ];
}
