import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

export function describeAuth(lore: () => LoreUnderTest): void {
  describe('authentication and workspaces', () => {
    it('rejects a missing credential with 401, WWW-Authenticate: Bearer and the detail shape', async () => {
      const reply = await call(lore(), 'GET', '/api/v1/memories');
      expect(reply.status).toBe(401);
      expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      expect(typeof reply.body.detail).toBe('string');
    });

    it('rejects malformed, wrongly signed and expired tokens with 401', async () => {
      const bad = [
        'not-a-jwt',
        await mintJwt('another-secret', { sub: 'u', workspace_id: 'w' }),
        await mintJwt(lore().jwtSecret, { sub: 'u', workspace_id: 'w' }, Math.floor(Date.now() / 1000) - 60),
        'lore_key_doesnotexist.secret',
        // An unpaired surrogate is no text: as an id it would be stored and published as U+FFFD.
        await mintJwt(lore().jwtSecret, { sub: 'u\ud800', workspace_id: 'w' }),
      ];
      for (const token of bad) {
        const reply = await call(lore(), 'GET', '/api/v1/memories', { token });
        expect(reply.status).toBe(401);
        expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      }
    });

    it('requires the Bearer scheme', async () => {
      const token = await mintJwt(lore().jwtSecret, { sub: 'u', workspace_id: 'w' });
      const reply = await call(lore(), 'GET', '/api/v1/memories', { headers: { authorization: `Basic ${token}` } });
      expect(reply.status).toBe(401);
    });

    it('lets a JWT use its workspace_id and the workspaces claim, and nothing else (403)', async () => {
      const [home, other, foreign] = [unique('ws'), unique('ws'), unique('ws')];
      const token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: home, workspaces: [other] });
      const created = await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: 'in home' } });
      expect(created.status).toBe(201);
      const inOther = await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: 'in other' }, headers: { 'x-workspace-id': other } });
      expect(inOther.status).toBe(201);
      const denied = await call(lore(), 'GET', '/api/v1/memories', { token, headers: { 'x-workspace-id': foreign } });
      expect(denied.status).toBe(403);
      expect(typeof denied.body.detail).toBe('string');
      // Workspaces are separate: the home memory is not visible from the other workspace.
      const fromOther = await call(lore(), 'GET', `/api/v1/memories/${created.body.memory_id}`, { token, headers: { 'x-workspace-id': other } });
      expect(fromOther.status).toBe(404);
      // A workspace id with an unpaired surrogate is no workspace (it would collide with its U+FFFD twin).
      const surrogate = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: `${home}\udc00` });
      expect((await call(lore(), 'GET', '/api/v1/memories', { token: surrogate })).status).toBe(403);
      // Nor is one over 255 characters; the refusal says what a workspace id must be, not that the claim is missing.
      const tooLong = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: 'w'.repeat(300) });
      const refused = await call(lore(), 'GET', '/api/v1/memories', { token: tooLong });
      expect(refused.status).toBe(403);
      expect(refused.body.detail).toContain('1 to 255 characters');
    });

    it('echoes a request id and serves health, readiness and the OpenAPI document without auth', async () => {
      const health = await call(lore(), 'GET', '/health', { headers: { 'x-request-id': 'trace-123' } });
      expect(health.status).toBe(200);
      expect(health.headers.get('x-request-id')).toBe('trace-123');
      const ready = await call(lore(), 'GET', '/ready');
      expect(ready.status).toBe(200);
      const openapi = await call(lore(), 'GET', '/openapi.json');
      expect(openapi.status).toBe(200);
      expect(openapi.body.openapi).toBe('3.1.0');
      expect(openapi.body.info.version).toBe('0.1.0');
      expect(Object.keys(openapi.body.components.securitySchemes)).toContain('DualAuthScheme');
      expect(openapi.body.paths['/api/v1/memories/{memory_id}/replace'].post).toBeDefined();
      const docs = await fetch(`${lore().url}/docs`);
      expect(docs.status).toBe(200);
      expect(await docs.text()).toContain('/openapi.json');
    });

    it('serves the AsyncAPI document of the integration events without auth', async () => {
      const asyncapi = await call(lore(), 'GET', '/asyncapi.json');
      expect(asyncapi.status).toBe(200);
      expect(asyncapi.body.asyncapi).toBe('3.0.0');
      expect(asyncapi.body.channels['memory.created'].address).toMatch(/\.events\.memory\.created\.\{workspace\}$/);
      expect(asyncapi.body.operations['sendMemoryCreated'].action).toBe('send');
      expect(asyncapi.body.components.messages['memory.created'].payload.properties.data.$ref).toBe('#/components/schemas/MemoryIntegrationEvent');
      expect(asyncapi.body.components.schemas['MemoryIntegrationEvent'].required).toContain('memory_id');
      // Every context of the registry contributes its events (knowledge has none yet).
      for (const type of ['api_key.revoked', 'conversation.created', 'messages.deleted', 'connection.status_changed']) expect(asyncapi.body.channels[type]).toBeDefined();
    });

    it('answers unknown paths with 404 in the detail shape', async () => {
      const reply = await call(lore(), 'GET', '/api/v1/nothing-here');
      expect(reply.status).toBe(404);
      expect(reply.body).toEqual({ detail: 'Not Found' });
    });
  });
}
