import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LoreClient } from '@lore/client';
import { createLoreMcpServer } from '@lore/client/mcp';
import { authorize } from '../auth/access';
import type { Authenticator } from '../auth/authenticator';
import { sendError } from '../http/error-replies';
import type { RequestRateLimits } from '../http/request-rate-limits';
import { noteAdmittedScope } from '../http/admitted-scopes';

/** Where the MCP server's client sends its requests: never a network address, the gateway answers them in-process. */
const IN_PROCESS_ORIGIN = 'http://gateway.internal';

/**
 * `POST /mcp`: Lore's MCP server over Streamable HTTP (stateless: a server and transport per
 * request, answered as JSON; no session, so GET and DELETE are 405 as the specification
 * allows). The request is authenticated and rate-limited like every route; each tool then
 * calls the gateway's own routes in-process (Fastify's inject) with the caller's credential,
 * workspace header and address, so every permission, collection bound, ownership rule and
 * rate limit applies to a tool exactly as to the same HTTP call.
 */
export function registerMcpRoute(app: FastifyInstance, deps: { readonly authenticator: Authenticator; readonly rateLimits: RequestRateLimits }): void {
  // Who is calling is decided before the body is read, as for every route (see registerRoutes).
  const onRequest = async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    try {
      const caller = await deps.authenticator.authenticate(request.headers.authorization, request.id);
      const scope = authorize(caller, { workspaceHeader: headerValue(request.headers['x-workspace-id']), clientIp: request.ip, permission: null, requestId: request.id });
      const admitting = deps.rateLimits.admit(scope, reply);
      if (admitting !== undefined) await admitting;
      noteAdmittedScope(request, scope);
      return undefined;
    } catch (error) {
      return sendError(error, request, reply);
    }
  };
  app.post('/mcp', { onRequest }, async (request, reply) => {
    const authorization = request.headers.authorization;
    const workspaceHeader = headerValue(request.headers['x-workspace-id']);
    const lore = new LoreClient({
      baseUrl: IN_PROCESS_ORIGIN,
      token: (authorization ?? '').replace(/^Bearer\s+/i, '').trim(),
      ...(workspaceHeader === undefined ? {} : { workspaceId: workspaceHeader }),
      fetch: (inner) => injected(app, request, inner),
      // The caller's MCP client retries the tool call; the inner requests are answered in-process.
      retry: { maxRetries: 0 },
    });
    const server = createLoreMcpServer(lore);
    // No sessionIdGenerator: stateless.
    const transport = new StreamableHTTPServerTransport({ enableJsonResponse: true });
    // The transport writes the answer itself; keep the headers set so far (request id, rate limits).
    for (const [name, value] of Object.entries(reply.getHeaders())) if (value !== undefined) reply.raw.setHeader(name, value);
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    try {
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    } catch (error) {
      request.log.error({ err: error }, 'MCP request failed');
      if (!reply.raw.headersSent) reply.raw.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'Internal Server Error' }));
    }
  });
}

/** A fetch answered by the gateway's own routes, as the caller (its address too, for API-key IP allow-lists). */
async function injected(app: FastifyInstance, outer: FastifyRequest, request: Request): Promise<Response> {
  const url = new URL(request.url);
  const headers: Record<string, string> = {};
  request.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
  const answer = await app.inject({
    method: request.method as 'GET',
    url: `${url.pathname}${url.search}`,
    headers,
    remoteAddress: outer.ip,
    ...(body === undefined ? {} : { payload: body }),
  });
  const responseHeaders = new Headers();
  for (const [name, value] of Object.entries(answer.headers)) {
    if (value === undefined) continue;
    for (const item of Array.isArray(value) ? value : [value]) responseHeaders.append(name, String(item));
  }
  const empty = answer.statusCode === 204 || answer.statusCode === 304;
  return new Response(empty ? null : answer.rawPayload, { status: answer.statusCode, headers: responseHeaders });
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}
