import { z } from 'zod';
import { actingOwner, offsetEnvelope, offsetPage, route, skipLimitQuery, type HttpRoute } from '@lore/platform/http';
import {
  CONNECTION_STATUSES,
  ConnectionRecord,
  ConnectionTestResult,
  INTEGRATION_TYPES,
  connectionFields,
  connectionMessages,
  type ConnectionsConfig,
} from '@lore/connections/contracts';
import { userId, UserIdQuery } from './user-id';

const ConnectionIdParams = z.object({ connection_id: z.string().min(1).max(100) });
const DeleteConnectionResponse = z.object({
  connection_id: z.string(),
  message: z.string(),
  credential_erased: z.boolean().describe('Its credential was crypto-shredded: no other connection used it'),
});

/** SPEC §4.5: connections, validated against the catalog (400 lists every failed check), with their credentials sealed apart. */
export function connectionRoutes({ limits, testTimeoutMs }: ConnectionsConfig): HttpRoute[] {
  const messages = connectionMessages(limits);
  const f = connectionFields(limits);
  /**
   * Creating or changing a connection may request a token (client credentials); a test may
   * refresh a token, verify, refresh once more after a 401 and verify again. Each request has
   * its own deadline (CONNECTION_TEST_TIMEOUT_MS), so the answer is waited for that long.
   */
  const budget = (requests: number): number => requests * testTimeoutMs + 5_000;
  const common = { tags: ['Connections'], auth: true } as const;
  const createBody = z.object({
    integration: f.integration,
    integration_type: f.integrationType.optional().describe("Must match the catalog entry's; taken from it when omitted"),
    label: f.label,
    config: f.config.default({}).describe("The integration's configuration: its entry's config_schema"),
    credential_id: f.credentialId.optional().describe('Reuse a stored credential of yours (from another connection)'),
    user_id: userId.optional(),
    credentials: f.credentials.optional().describe("The auth method's fields (its `fields` schema); stored sealed, never returned"),
    auth_method_id: f.authMethodId.optional().describe("Defaults to the entry's default_auth_method_id"),
  });
  const updateBody = z.object({
    label: f.label.optional(),
    config: f.config.optional().describe('A JSON merge patch (RFC 7386) of the configuration: null removes a key'),
    credentials: f.credentials.optional().describe('New credentials (rotation): validated, stored as a new credential; the old one is shredded when unused'),
    credential_id: f.credentialId.optional(),
    auth_method_id: f.authMethodId.optional(),
    status: z.enum(['active', 'inactive']).optional().describe('Enable or disable (README, "Connection lifecycle")'),
    user_id: userId.optional(),
  });
  const listQuery = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
    user_id: userId.optional(),
    integration: z.string().min(1).max(100).optional().describe('A catalog entry id'),
    integration_type: z.enum(INTEGRATION_TYPES).optional(),
    status: z.enum(CONNECTION_STATUSES).optional(),
    search: z.string().min(1).max(255).optional().describe('Case-insensitive substring of the label'),
    sort_by: z.enum(['created_at', 'updated_at', 'label']).default('created_at'),
    sort_order: z.enum(['asc', 'desc']).default('desc'),
  });

  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/connections',
      operationId: 'create_connection',
      summary: 'Create a connection (validated against its catalog entry)',
      permission: ['connections', 'write'],
      body: createBody,
      status: 201,
      response: ConnectionRecord,
      errors: [400, 403],
      timeoutMs: budget(1),
      handle: async ({ body, scope, send }) =>
        send(messages.create, {
          ...actingOwner(scope, body.user_id),
          integration: body.integration,
          label: body.label,
          config: body.config,
          integrationType: body.integration_type,
          credentials: body.credentials,
          credentialId: body.credential_id,
          authMethodId: body.auth_method_id,
        }),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/connections',
      operationId: 'list_connections',
      summary: 'List connections',
      permission: ['connections', 'read'],
      query: listQuery,
      status: 200,
      response: offsetEnvelope(ConnectionRecord),
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const page = await send(messages.list, {
          ...actingOwner(scope, query.user_id),
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          skip: query.skip,
          limit: query.limit,
          integration: query.integration,
          integrationType: query.integration_type,
          status: query.status,
          search: query.search,
        });
        return offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit });
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/connections/integrations/:integration_type',
      operationId: 'list_connections_by_integration_type',
      summary: 'List connections of an integration type',
      permission: ['connections', 'read'],
      params: z.object({ integration_type: z.enum(INTEGRATION_TYPES) }),
      query: z.object({ status: z.enum(CONNECTION_STATUSES).optional(), user_id: userId.optional() }),
      status: 200,
      response: z.array(ConnectionRecord),
      errors: [403],
      handle: async ({ params, query, scope, send }) => {
        // SPEC §4.5 answers a plain array: every match, read a page of 1000 at a time.
        const items: ConnectionRecord[] = [];
        for (let total = Infinity; items.length < total; ) {
          const page = await send(messages.list, {
            ...actingOwner(scope, query.user_id),
            integrationType: params.integration_type,
            status: query.status,
            sortBy: 'created_at',
            sortOrder: 'desc',
            skip: items.length,
            limit: 1000,
          });
          items.push(...page.items);
          total = page.items.length === 0 ? items.length : page.total;
        }
        return items;
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/connections/:connection_id',
      operationId: 'get_connection',
      summary: 'Get a connection',
      permission: ['connections', 'read'],
      params: ConnectionIdParams,
      query: UserIdQuery,
      status: 200,
      response: ConnectionRecord,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => send(messages.get, { ...actingOwner(scope, query.user_id), connectionId: params.connection_id }),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/v1/connections/:connection_id',
      operationId: 'update_connection',
      summary: 'Update a connection (label, config, credentials rotation, status)',
      permission: ['connections', 'write'],
      params: ConnectionIdParams,
      body: updateBody,
      status: 200,
      response: ConnectionRecord,
      errors: [400, 403, 404, 409],
      timeoutMs: budget(1),
      handle: async ({ params, body, scope, send }) =>
        send(messages.update, {
          ...actingOwner(scope, body.user_id),
          connectionId: params.connection_id,
          label: body.label,
          config: body.config,
          credentials: body.credentials,
          credentialId: body.credential_id,
          authMethodId: body.auth_method_id,
          status: body.status,
        }),
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/connections/:connection_id',
      operationId: 'delete_connection',
      summary: 'Delete a connection (its credential is shredded unless another connection uses it)',
      permission: ['connections', 'write'],
      params: ConnectionIdParams,
      query: UserIdQuery,
      status: 200,
      response: DeleteConnectionResponse,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const deleted = await send(messages.delete, { ...actingOwner(scope, query.user_id), connectionId: params.connection_id });
        return { connection_id: deleted.connectionId, message: 'Connection deleted', credential_erased: deleted.credentialErased };
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/connections/:connection_id/test',
      operationId: 'test_connection',
      summary: "Test a connection with its integration's verification request",
      permission: ['connections', 'write'],
      params: ConnectionIdParams,
      query: UserIdQuery,
      status: 200,
      response: ConnectionTestResult,
      errors: [403, 404, 409],
      timeoutMs: budget(4),
      handle: async ({ params, query, scope, send }) => send(messages.test, { ...actingOwner(scope, query.user_id), connectionId: params.connection_id }),
    }),
  ];
}
