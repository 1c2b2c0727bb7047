import { SignJWT } from 'jose';
import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

/** A workspace administrator's token (the `roles` claim names `admin`). */
async function adminToken(lore: LoreUnderTest, workspace: string): Promise<string> {
  return new SignJWT({ workspace_id: workspace, roles: ['admin'] })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(unique('operator'))
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(lore.jwtSecret));
}

/**
 * The operators' routes for parked events (README "Parked events"). A healthy Lore has none,
 * so this checks the routes' contract: permission, workspace scope, 404 for an unknown record.
 * What parking does is tested on a processor made to fail (apps/standalone/parked-events.int.spec.ts).
 */
export function describeAdmin(lore: () => LoreUnderTest): void {
  describe('admin: parked events', () => {
    it('lists none in a healthy workspace, answers 404 for an unknown record, and retries nothing', async () => {
      const token = await adminToken(lore(), unique('ws'));
      const listed = await call(lore(), 'GET', '/api/v1/admin/parked-events', { token });
      expect(listed.status).toBe(200);
      expect(listed.body).toEqual({ items: [] });
      const unknown = await call(lore(), 'POST', '/api/v1/admin/parked-events/no-such-record/retry', { token });
      expect(unknown.status).toBe(404);
      expect(typeof unknown.body.detail).toBe('string');
      const all = await call(lore(), 'POST', '/api/v1/admin/parked-events/retry', { token });
      expect(all.status).toBe(200);
      expect(all.body).toEqual({ applied: 0, failed: [] });
      const ready = await call(lore(), 'GET', '/ready');
      expect(ready.status).toBe(200);
      expect(['ready', 'degraded']).toContain(ready.body.status);
    });

    it('refuses an API key without admin:read / admin:write (403), and lets one with them in', async () => {
      const token = await adminToken(lore(), unique('ws'));
      const memoriesOnly = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'no admin', permissions: ['memories:read'] } })).body.key as string;
      expect((await call(lore(), 'GET', '/api/v1/admin/parked-events', { token: memoriesOnly })).status).toBe(403);
      expect((await call(lore(), 'POST', '/api/v1/admin/parked-events/retry', { token: memoriesOnly })).status).toBe(403);
      const reader = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'admin reader', permissions: ['admin:read'] } })).body.key as string;
      expect((await call(lore(), 'GET', '/api/v1/admin/parked-events', { token: reader })).status).toBe(200);
      expect((await call(lore(), 'POST', '/api/v1/admin/parked-events/retry', { token: reader })).status).toBe(403);
    });

    it('refuses a member of the workspace (a JWT without the admin role), whatever it asks', async () => {
      const workspace = unique('ws');
      const member = await mintJwt(lore().jwtSecret, { sub: unique('member'), workspace_id: workspace });
      expect((await call(lore(), 'GET', '/api/v1/admin/parked-events', { token: member })).status).toBe(403);
      expect((await call(lore(), 'POST', '/api/v1/admin/parked-events/retry', { token: member })).status).toBe(403);
    });
  });
}
