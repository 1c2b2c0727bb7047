import { z } from 'zod';
import { actingOwner, RedirectReply, route, type HttpRoute } from '@lore/platform/http';
import { BrowserRedirect, ConnectSessionRecord, OAuthScope, connectMessages, connectionFields, type ConnectionsConfig } from '@lore/connections/contracts';
import { userId, UserIdQuery } from './user-id';

const SessionParams = z.object({ session_id: z.string().min(1).max(100) });

/**
 * Connect sessions (README, "Connect sessions (OAuth)"): the application creates one and polls
 * it (authenticated); the user's browser visits its one-time URL and comes back through the
 * callback (open endpoints, protected by the one-time link token and the `state`).
 */
export function connectRoutes({ limits, testTimeoutMs }: ConnectionsConfig): HttpRoute[] {
  const messages = connectMessages(limits);
  const f = connectionFields(limits);
  const common = { tags: ['Connect sessions'] } as const;
  const createBody = z.object({
    integration: f.integration,
    auth_method_id: f.authMethodId.optional().describe("An OAuth 2.0 authorization code method of the entry; its default (or first such) method when omitted"),
    scopes: z.array(OAuthScope).max(100).optional().describe("The scopes to ask for; the method's catalog scopes when omitted"),
    user_id: userId.optional().describe('The user the connection is for (acting for another user takes an administrator, as for connections)'),
    redirect_url: z.string().min(1).max(2000).describe('Where the user is sent back with the outcome: one of CONNECT_REDIRECT_URLS (or under one ending in /)'),
    config: f.config.optional().describe("The integration's configuration (its config_schema); the OAuth app's registered configuration wins"),
    label: f.label.optional().describe("The new connection's label; the integration's name when omitted"),
    connection_id: z.string().min(1).max(100).optional().describe('Reconnect this connection (new tokens) instead of creating one'),
    expires_in: z.number().int().min(1).max(86_400).optional().describe('Seconds the session may take (CONNECT_SESSION_TTL_MS when omitted; at most CONNECT_SESSION_MAX_TTL_MS)'),
  });
  return [
    route({
      ...common,
      auth: true,
      method: 'POST',
      path: '/api/v1/connect/sessions',
      operationId: 'create_connect_session',
      summary: 'Create a connect session: a one-time URL that runs the OAuth authorization for a user',
      permission: ['connections', 'write'],
      body: createBody,
      status: 201,
      response: ConnectSessionRecord,
      errors: [400, 403, 503],
      handle: async ({ body, scope, send }) =>
        send(messages.create, {
          ...actingOwner(scope, body.user_id),
          integration: body.integration,
          authMethodId: body.auth_method_id,
          scopes: body.scopes,
          redirectUrl: body.redirect_url,
          config: body.config,
          label: body.label,
          connectionId: body.connection_id,
          expiresInSeconds: body.expires_in,
        }),
    }),
    route({
      ...common,
      auth: true,
      method: 'GET',
      path: '/api/v1/connect/sessions/:session_id',
      operationId: 'get_connect_session',
      summary: 'Get a connect session: its status and outcome (for polling)',
      permission: ['connections', 'read'],
      params: SessionParams,
      query: UserIdQuery,
      status: 200,
      response: ConnectSessionRecord,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => send(messages.get, { ...actingOwner(scope, query.user_id), sessionId: params.session_id }),
    }),
    route({
      ...common,
      auth: false,
      method: 'GET',
      path: '/api/v1/connect/sessions/:session_id/authorize',
      operationId: 'authorize_connect_session',
      summary: "The one-time URL (for the user's browser): redirects to the provider's authorization page",
      permission: null,
      params: SessionParams,
      query: z.object({ token: z.string().min(1).max(200).describe('The one-time link token of connect_url') }),
      status: 302,
      response: BrowserRedirect,
      errors: [404],
      handle: async ({ params, query, send }) => new RedirectReply((await send(messages.authorize, { sessionId: params.session_id, token: query.token })).location),
    }),
    route({
      ...common,
      auth: false,
      method: 'GET',
      path: '/api/v1/connect/callback',
      operationId: 'connect_callback',
      summary: "The OAuth redirect URI (for the provider): exchanges the code and sends the browser back to the application with the outcome",
      permission: null,
      query: z.object({
        state: z.string().max(300).optional(),
        code: z.string().max(4000).optional(),
        error: z.string().max(200).optional(),
        error_description: z.string().max(2000).optional(),
      }),
      status: 302,
      response: BrowserRedirect,
      errors: [400],
      // The exchange, the connection's creation and its test (which may refresh and verify twice).
      timeoutMs: 5 * testTimeoutMs + 5_000,
      handle: async ({ query, send }) =>
        new RedirectReply((await send(messages.callback, { state: query.state, code: query.code, error: query.error, errorDescription: query.error_description })).location),
    }),
  ];
}
