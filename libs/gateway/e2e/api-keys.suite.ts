import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

async function owner(lore: LoreUnderTest): Promise<{ token: string; workspace: string; user: string }> {
  const workspace = unique('ws');
  const user = unique('user');
  return { token: await mintJwt(lore.jwtSecret, { sub: user, workspace_id: workspace }), workspace, user };
}

export function describeApiKeys(lore: () => LoreUnderTest): void {
  describe('API keys', () => {
    it('creates a key whose secret is shown once and never again', async () => {
      const { token, workspace, user } = await owner(lore());
      const created = await call(lore(), 'POST', '/api/v1/api-keys', {
        token,
        body: { label: 'ci', permissions: ['memories:read', 'memories:write'], ip_whitelist: ['127.0.0.1', '::1/128'], collections: ['c1'] },
      });
      expect(created.status).toBe(201);
      const key = created.body;
      expect(key).toMatchObject({ label: 'ci', status: 'active', workspace_id: workspace, created_by: user, collections: ['c1'], last_used_at: null, expires_at: null });
      expect(key.id.length).toBeLessThanOrEqual(50);
      expect(key.key).toContain(key.secret);
      expect(key.hashed_secret).toMatch(/^[0-9a-f]{64}$/);
      const fetched = await call(lore(), 'GET', `/api/v1/api-keys/${key.id}`, { token });
      expect(fetched.status).toBe(200);
      const listed = await call(lore(), 'GET', '/api/v1/api-keys', { token });
      expect(listed.body.total_count).toBe(1);
      for (const body of [fetched.body, listed.body.data[0]]) {
        expect(body.id).toBe(key.id);
        const text = JSON.stringify(body);
        expect(text).not.toContain(key.secret);
        expect(text).not.toContain(key.hashed_secret);
        expect(body).not.toHaveProperty('key');
      }
    });

    it('authenticates with the key, within its permissions, and records last use', async () => {
      const { token, user } = await owner(lore());
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'reader', permissions: ['memories:read'] } })).body;
      const read = await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: key.key });
      expect(read.status).toBe(200);
      const write = await call(lore(), 'POST', '/api/v1/memories', { token: key.key, body: { user_id: user, memory: 'x' } });
      expect(write.status).toBe(403);
      const keysRead = await call(lore(), 'GET', '/api/v1/api-keys', { token: key.key });
      expect(keysRead.status).toBe(403);
      const fetched = await call(lore(), 'GET', `/api/v1/api-keys/${key.id}`, { token });
      expect(fetched.body.last_used_at).not.toBeNull();
    });

    it('stops a revoked key at once', async () => {
      const { token, user } = await owner(lore());
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'temp' } })).body;
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: key.key })).status).toBe(200);
      const revoked = await call(lore(), 'DELETE', `/api/v1/api-keys/${key.id}`, { token });
      expect(revoked.status).toBe(200);
      expect(revoked.body.status).toBe('revoked');
      const after = await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: key.key });
      expect(after.status).toBe(401);
      expect(after.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('refuses inactive keys (401), foreign IPs (403) and other workspaces (403)', async () => {
      const { token, user } = await owner(lore());
      const inactive = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'off', status: 'inactive' } })).body;
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: inactive.key })).status).toBe(401);
      const fenced = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'fenced', ip_whitelist: ['10.0.0.0/8', '2001:db8::/32'] } })).body;
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: fenced.key })).status).toBe(403);
      // X-Forwarded-For is not trusted unless TRUST_PROXY is set.
      const spoofed = await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: fenced.key, headers: { 'x-forwarded-for': '10.1.2.3' } });
      expect(spoofed.status).toBe(403);
      const open = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'open' } })).body;
      const elsewhere = await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: open.key, headers: { 'x-workspace-id': unique('ws') } });
      expect(elsewhere.status).toBe(403);
    });

    it('validates creation: label, expiry in the future, permissions, IPs (422 naming the field)', async () => {
      const { token } = await owner(lore());
      const cases: Array<[unknown, Array<string | number>]> = [
        [{}, ['body', 'label']],
        [{ label: '' }, ['body', 'label']],
        [{ label: 'x'.repeat(256) }, ['body', 'label']],
        [{ label: 'k', expires_at: '2001-01-01T00:00:00Z' }, ['body', 'expires_at']],
        [{ label: 'k', expires_at: 'tomorrow' }, ['body', 'expires_at']],
        [{ label: 'k', permissions: ['memories:delete'] }, ['body', 'permissions', 0]],
        [{ label: 'k', ip_whitelist: ['10.0.0.300'] }, ['body', 'ip_whitelist', 0]],
        [{ label: 'k', ip_whitelist: ['10.0.0.0/33'] }, ['body', 'ip_whitelist', 0]],
        [{ label: 'k', status: 'revoked' }, ['body', 'status']],
      ];
      for (const [body, loc] of cases) {
        const reply = await call(lore(), 'POST', '/api/v1/api-keys', { token, body });
        expect(reply.status).toBe(422);
        expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
        for (const d of reply.body.detail) expect(typeof d.msg === 'string' && typeof d.type === 'string').toBe(true);
      }
    });

    it('lets a key expire', async () => {
      const { token, user } = await owner(lore());
      const soon = new Date(Date.now() + 1500).toISOString();
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'short', expires_at: soon } })).body;
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: key.key })).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1700));
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: key.key })).status).toBe(401);
    });

    it('never lets a key grant more than it holds', async () => {
      const { token } = await owner(lore());
      const parent = (await call(lore(), 'POST', '/api/v1/api-keys', {
        token,
        body: { label: 'parent', permissions: ['api_keys:write', 'memories:read'], collections: ['a', 'b'] },
      })).body;
      const escalate = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'c', permissions: ['memories:write'] } });
      expect(escalate.status).toBe(403);
      const wildcard = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'c', permissions: ['*'] } });
      expect(wildcard.status).toBe(403);
      const foreign = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'c', permissions: ['memories:read'], collections: ['z'] } });
      expect(foreign.status).toBe(403);
      const child = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'c', permissions: ['memories:read'], collections: ['a'] } });
      expect(child.status).toBe(201);
      expect(child.body.collections).toEqual(['a']);
      const inherited = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'd' } });
      expect(inherited.status).toBe(201);
      expect(inherited.body.permissions).toEqual(['api_keys:write', 'memories:read']);
      expect(inherited.body.collections).toEqual(['a', 'b']);
    });

    it("never lets a child key shed its creator's IP rules or expiry", async () => {
      const { token } = await owner(lore());
      const expiry = new Date(Date.now() + 3_600_000).toISOString();
      const parent = (await call(lore(), 'POST', '/api/v1/api-keys', {
        token,
        body: { label: 'fenced parent', permissions: ['api_keys:write', 'memories:read'], ip_whitelist: ['127.0.0.1'], expires_at: expiry },
      })).body;
      const inherited = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'inherits' } });
      expect(inherited.status).toBe(201);
      expect(inherited.body).toMatchObject({ ip_whitelist: ['127.0.0.1'], expires_at: parent.expires_at });
      const later = new Date(Date.now() + 7_200_000).toISOString();
      const wider: Array<Record<string, unknown>> = [{ ip_whitelist: [] }, { ip_whitelist: ['10.0.0.0/8'] }, { ip_whitelist: ['127.0.0.0/8'] }, { expires_at: null }, { expires_at: later }];
      for (const body of wider) {
        const reply = await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'wider', ...body } });
        expect({ body, status: reply.status }).toEqual({ body, status: 403 });
        expect(typeof reply.body.detail).toBe('string');
      }
      const narrower = await call(lore(), 'POST', '/api/v1/api-keys', {
        token: parent.key,
        body: { label: 'narrower', ip_whitelist: ['127.0.0.1/32'], expires_at: new Date(Date.now() + 1_800_000).toISOString() },
      });
      expect(narrower.status).toBe(201);
    });

    it('revokes every key a revoked key created, and their keys, at once', async () => {
      const { token, user } = await owner(lore());
      const parent = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'parent', permissions: ['api_keys:*', 'memories:read'] } })).body;
      const child = (await call(lore(), 'POST', '/api/v1/api-keys', { token: parent.key, body: { label: 'child' } })).body;
      const grandchild = (await call(lore(), 'POST', '/api/v1/api-keys', { token: child.key, body: { label: 'grandchild', permissions: ['memories:read'] } })).body;
      for (const k of [child, grandchild]) expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: k.key })).status).toBe(200);
      expect((await call(lore(), 'DELETE', `/api/v1/api-keys/${parent.id}`, { token })).status).toBe(200);
      for (const k of [parent, child, grandchild]) {
        expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: k.key })).status).toBe(401);
        expect((await call(lore(), 'GET', `/api/v1/api-keys/${k.id}`, { token })).body.status).toBe('revoked');
      }
    });

    it('lets a key revoke only keys whose grants it covers', async () => {
      const { token, user } = await owner(lore());
      const everything = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'all' } })).body;
      const writer = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'writer', permissions: ['api_keys:write'] } })).body;
      const refused = await call(lore(), 'DELETE', `/api/v1/api-keys/${everything.id}`, { token: writer.key });
      expect(refused.status).toBe(403);
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: everything.key })).status).toBe(200);
      const peer = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: 'peer', permissions: ['api_keys:write'] } })).body;
      expect((await call(lore(), 'DELETE', `/api/v1/api-keys/${peer.id}`, { token: writer.key })).status).toBe(200);
      // A key never takes down the key it was created from, though it holds the same grants.
      const child = (await call(lore(), 'POST', '/api/v1/api-keys', { token: everything.key, body: { label: 'child' } })).body;
      const upward = await call(lore(), 'DELETE', `/api/v1/api-keys/${everything.id}`, { token: child.key });
      expect(upward.status).toBe(403);
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${user}`, { token: everything.key })).status).toBe(200);
    });

    it('keeps keys to their workspace: another workspace gets 404', async () => {
      const a = await owner(lore());
      const b = await owner(lore());
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token: a.token, body: { label: 'mine' } })).body;
      expect((await call(lore(), 'GET', `/api/v1/api-keys/${key.id}`, { token: b.token })).status).toBe(404);
      expect((await call(lore(), 'DELETE', `/api/v1/api-keys/${key.id}`, { token: b.token })).status).toBe(404);
    });
  });
}
