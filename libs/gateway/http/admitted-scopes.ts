import type { FastifyRequest } from 'fastify';
import type { RequestScope } from '@lore/platform/http';

/**
 * Each request's scope once its onRequest hook has authenticated, authorized and admitted it
 * (the routes' and the MCP endpoint's): read by the route's handler, and by the JSON body
 * parser, which reads a large body in its workspace's turn (JsonBodyThread). Weak: a scope goes
 * with its request.
 */
const scopes = new WeakMap<FastifyRequest, RequestScope>();

export function noteAdmittedScope(request: FastifyRequest, scope: RequestScope): void {
  scopes.set(request, scope);
}

/** The request's scope; undefined before admission and on routes open to anyone. */
export function admittedScope(request: FastifyRequest): RequestScope | undefined {
  return scopes.get(request);
}
