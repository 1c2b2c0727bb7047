import { z } from 'zod';
import { offsetEnvelope, offsetPage, route, skipLimitQuery, type HttpRoute, type RequestScope } from '@lore/platform/http';
import {
  API_KEY_STATUSES,
  ApiKeyRecord,
  CreatedApiKey,
  apiKeyCollection,
  apiKeyIpRule,
  apiKeyLabel,
  apiKeyPermission,
  keysMessages,
  type ApiKeyGrantor,
} from '@lore/keys/contracts';

const CreateApiKeyBody = z.object({
  label: apiKeyLabel,
  status: z.enum(['active', 'inactive']).default('active'),
  expires_at: z.iso
    .datetime({ offset: true })
    .refine((value) => Date.parse(value) > Date.now(), { message: 'Expiry must lie in the future' })
    .nullish()
    .describe("Must lie in the future. Absent: the creator's expiry (a user's keys: never); null: never, which a key created by an expiring key may not ask for"),
  permissions: z.array(apiKeyPermission).max(100).optional().describe("Absent: the creator's own permissions"),
  ip_whitelist: z.array(apiKeyIpRule).max(100).optional().describe("Absent: the creator's own rules. Empty: any address, unless the creator is a key with rules"),
  collections: z.array(apiKeyCollection).max(1000).optional().describe("Absent: the creator's own collections (empty = all)"),
});

const ListApiKeysQuery = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({ status: z.enum(API_KEY_STATUSES).optional() });
const ApiKeyIdParams = z.object({ key_id: z.string().min(1).max(50) });

/** The caller as the keys service sees it: a user with its verified role; a key, whose grants and role it reads itself. */
function grantorOf(scope: RequestScope): ApiKeyGrantor {
  const { caller } = scope;
  return caller.kind === 'user' ? { kind: 'user', userId: caller.userId, role: caller.role } : { kind: 'api_key', keyId: caller.keyId };
}

/** API keys over HTTP: create (secret shown once), list, get, revoke. */
export function apiKeyRoutes(): HttpRoute[] {
  const common = { tags: ['API keys'], auth: true } as const;
  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/api-keys',
      operationId: 'create_api_key',
      summary: 'Create an API key (the secret is shown only in this response)',
      permission: ['api_keys', 'write'],
      body: CreateApiKeyBody,
      status: 201,
      response: CreatedApiKey,
      errors: [403],
      handle: ({ body, scope, send }) =>
        send(keysMessages.create, {
          workspaceId: scope.workspaceId,
          actor: scope.actor,
          grantor: grantorOf(scope),
          label: body.label,
          status: body.status,
          expiresAt: body.expires_at,
          permissions: body.permissions,
          ipWhitelist: body.ip_whitelist,
          collections: body.collections,
        }),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/api-keys',
      operationId: 'list_api_keys',
      summary: 'List the API keys of the workspace, newest first',
      permission: ['api_keys', 'read'],
      query: ListApiKeysQuery,
      status: 200,
      response: offsetEnvelope(ApiKeyRecord),
      handle: async ({ query, scope, send }) => {
        const page = await send(keysMessages.list, {
          workspaceId: scope.workspaceId,
          actor: scope.actor,
          skip: query.skip,
          limit: query.limit,
          status: query.status,
        });
        return offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit, nextCursor: null });
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/api-keys/:key_id',
      operationId: 'get_api_key',
      summary: 'Get an API key (never its secret)',
      permission: ['api_keys', 'read'],
      params: ApiKeyIdParams,
      status: 200,
      response: ApiKeyRecord,
      errors: [403, 404],
      handle: ({ params, scope, send }) => send(keysMessages.get, { workspaceId: scope.workspaceId, actor: scope.actor, keyId: params.key_id }),
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/api-keys/:key_id',
      operationId: 'revoke_api_key',
      summary: 'Revoke an API key and every key it created: they stop working at once',
      permission: ['api_keys', 'write'],
      params: ApiKeyIdParams,
      status: 200,
      response: ApiKeyRecord,
      errors: [403, 404],
      handle: ({ params, scope, send }) =>
        send(keysMessages.revoke, { workspaceId: scope.workspaceId, actor: scope.actor, grantor: grantorOf(scope), keyId: params.key_id }),
    }),
  ];
}
