import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { SignJWT } from 'jose';
import { z } from 'zod';
import { route } from '@lore/platform/http';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { keysContext } from '@lore/keys/application';
import { keysEdge } from '@lore/keys/http';
import { call, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';
import { configureGateway } from '@lore/gateway';

const SECRET = 'admin-permission-int-secret-0123456789';

/**
 * Over HTTP, through the gateway's real authentication and authorization and the keys
 * service: a route that needs `admin:read` (as operator routes such as parked events do)
 * answers administrators and their keys only.
 */
describe('a route that needs an admin permission', () => {
  let keys: RunningContext;
  let app: FastifyInstance;
  let lore: LoreUnderTest;

  beforeAll(async () => {
    keys = await startContext(keysContext);
    app = Fastify();
    const operatorRoute = route({
      method: 'GET',
      path: '/api/v1/operator-check',
      operationId: 'operator_check',
      summary: 'Who is acting (answers only those allowed admin:read)',
      tags: ['test'],
      auth: true,
      permission: ['admin', 'read'],
      status: 200,
      response: z.object({ actor: z.string() }),
      handle: async ({ scope }) => ({ actor: scope.actor }),
    });
    configureGateway(app, {
      config: {
        auth: { jwtSecret: SECRET, jwksUrl: undefined, issuer: undefined, audience: undefined, allowNoExp: false, maxLifetimeSeconds: 86_400, adminClaim: 'realm_access.roles', adminValue: 'lore-admin' },
        trustProxy: false,
        maxBodyBytes: 1024 * 1024,
        requestTimeoutMs: 5_000,
        eventsHeartbeatMs: 15_000,
        // Off: this test is about permissions, not rates.
        rateLimits: { caller: { perMinute: 0, burst: 0 }, workspace: { perMinute: 0, burst: 0 }, leaseMs: 0, overrides: new Map() },
      },
      transport: keys.transport,
      feed: keys.feed,
      eventIdSecret: randomBytes(32),
      edges: [{ name: 'keys', routes: keysEdge.routes({}, { log: { warn: () => undefined } }) }, { name: 'operator', routes: [operatorRoute] }],
    });
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    lore = { url, jwtSecret: SECRET };
  });
  afterAll(async () => {
    await app.close();
    await keys.stop();
  });

  /** A token whose admin role sits where AUTH_ADMIN_CLAIM=realm_access.roles says (Keycloak's shape). */
  function token(sub: string, roles: string[]): Promise<string> {
    return new SignJWT({ workspace_id: 'ws', realm_access: { roles } })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
  }

  const check = (bearer: string) => call(lore, 'GET', '/api/v1/operator-check', { token: bearer });

  it('refuses a member JWT (403) and answers an administrator JWT', async () => {
    const member = await check(await token('mia', ['offline_access']));
    expect({ status: member.status, detail: member.body.detail }).toEqual({ status: 403, detail: expect.stringMatching(/admin:read is for workspace administrators/) });
    // The default claim name does not count once AUTH_ADMIN_CLAIM points elsewhere.
    expect((await check(await mintJwt(SECRET, { sub: 'mia', workspace_id: 'ws', roles: ['lore-admin'] }))).status).toBe(403);
    const admin = await check(await token('ada', ['offline_access', 'lore-admin']));
    expect({ status: admin.status, body: admin.body }).toEqual({ status: 200, body: { actor: 'user:ada' } });
  });

  it("refuses a member's key even with '*', and answers an administrator's key that holds admin:read", async () => {
    const memberKey = await call(lore, 'POST', '/api/v1/api-keys', { token: await token('mia', []), body: { label: 'everything' } });
    expect(memberKey.body).toMatchObject({ permissions: ['*'], acts_for_others: false });
    expect((await check(memberKey.body.key)).status).toBe(403);
    const adminJwt = await token('ada', ['lore-admin']);
    const operator = await call(lore, 'POST', '/api/v1/api-keys', { token: adminJwt, body: { label: 'operator', permissions: ['admin:read'] } });
    expect(operator.status).toBe(201);
    expect((await check(operator.body.key)).body).toEqual({ actor: `api_key:${operator.body.id}` });
    const memoriesOnly = await call(lore, 'POST', '/api/v1/api-keys', { token: adminJwt, body: { label: 'memories', permissions: ['memories:*'] } });
    expect((await check(memoriesOnly.body.key)).status).toBe(403);
  });
});
