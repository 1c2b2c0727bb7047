import type { FastifyRequest } from 'fastify';

/**
 * The methods the router serves for the request's path, read from the route table itself,
 * so every route of every context gets 405 (instead of 404) for the methods it lacks
 * without declaring anything. Empty when no route matches the path at all (a real 404).
 * Only called on the not-found path, so its cost does not touch served requests.
 */
export function allowedMethods(request: FastifyRequest): string[] {
  const server = request.server;
  return server.supportedMethods.filter((method) => server.findRoute({ method, url: request.url }) !== null);
}
