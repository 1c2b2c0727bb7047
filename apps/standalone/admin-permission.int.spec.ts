import { SignJWT } from 'jose';
import { z } from 'zod';
import { route } from '@lore/platform/http';
import { call, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';
import { startGatewayOverKeys } from './gateway-over-keys.fixture';

const SECRET = 'admin-permission-int-secret-0123456789';

/**
 * Over HTTP, through the gateway's real authentication and authorization and the keys
 * service: a route that needs `admin:read` (as operator routes such as parked events do)
 * answers administrators and their keys only.
 */
describe('a route that needs an admin permission', () => {
  let gateway: Awaited<ReturnType<typeof startGatewayOverKeys>>;
  let lore: LoreUnderTest;

  beforeAll(async () => {
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
    gateway = await startGatewayOverKeys([operatorRoute], { jwtSecret: SECRET, adminClaim: 'realm_access.roles' });
    lore = { url: gateway.url, jwtSecret: SECRET };
  });
  afterAll(async () => {
    await gateway.stop();
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
