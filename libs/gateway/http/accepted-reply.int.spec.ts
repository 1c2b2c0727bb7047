import Fastify, { type FastifyInstance } from 'fastify';
import { z } from 'zod';
import { AcceptedReply, route, type HttpRoute } from '@lore/platform/http';
import { registerRoutes } from './register-routes';

/** Routes open to anyone (no authenticator, transport or rate limits are reached), replies not checked: as in production. */
async function appWith(routes: readonly HttpRoute[]): Promise<FastifyInstance> {
  const app = Fastify();
  registerRoutes(app, routes, { authenticator: {} as never, transport: {} as never, requestTimeoutMs: 1_000, eventStreams: {} as never, rateLimits: {} as never, checkReplies: false });
  await app.ready();
  return app;
}

const Deleted = z.object({ id: z.string(), message: z.string() });
const deletion = (path: string, accepted: string | undefined, erasing: boolean): HttpRoute =>
  route({
    method: 'DELETE',
    path,
    operationId: path.slice(1),
    summary: 'x',
    tags: [],
    auth: false,
    permission: null,
    status: 200,
    response: Deleted,
    ...(accepted === undefined ? {} : { accepted }),
    handle: async () => (erasing ? new AcceptedReply({ id: 'x_1', message: 'under way' }) : { id: 'x_1', message: 'done' }),
  });

describe('a route answering 202 Accepted', () => {
  it('answers 202 with the body when the handler says the work is under way, 200 otherwise; a route that does not declare it is a 500', async () => {
    const app = await appWith([deletion('/under-way', 'still erasing', true), deletion('/done', 'still erasing', false), deletion('/undeclared', undefined, true)]);
    try {
      const underWay = await app.inject({ method: 'DELETE', url: '/under-way' });
      expect([underWay.statusCode, underWay.json()]).toEqual([202, { id: 'x_1', message: 'under way' }]);
      const done = await app.inject({ method: 'DELETE', url: '/done' });
      expect([done.statusCode, done.json()]).toEqual([200, { id: 'x_1', message: 'done' }]);
      expect((await app.inject({ method: 'DELETE', url: '/undeclared' })).statusCode).toBe(500);
    } finally {
      await app.close();
    }
  });
});
