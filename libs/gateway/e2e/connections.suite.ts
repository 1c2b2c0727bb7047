import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';
import { FRESH_ACCESS_TOKEN, GOOD_TOKEN, LIVE_REFRESH_TOKEN, startProviderStandIn, type ProviderStandIn } from './provider-stand-in';

const OPENAI_KEY = 'sk-proj-e2eSECRETvalue0123456789abcdefXYZW';

/**
 * Connections (SPEC §4.5): validation against the catalog (400 listing every failed check),
 * credentials sealed and never returned, the lifecycle, tests against a provider stand-in on
 * 127.0.0.1 (the topology allows it with LORE_EGRESS_ALLOW=127.0.0.1; 127.0.0.2 stays refused).
 */
export function describeConnections(lore: () => LoreUnderTest): void {
  describe('connections', () => {
    let provider: ProviderStandIn;
    let token: string;
    beforeAll(async () => {
      provider = await startProviderStandIn();
      token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
    });
    afterAll(() => provider.close());

    const create = (body: unknown, as = token) => call(lore(), 'POST', '/api/v1/connections', { token: as, body });
    const restApi = (extra: Record<string, unknown> = {}) => ({
      integration: 'rest-api',
      label: unique('api'),
      auth_method_id: 'bearer',
      config: { base_url: provider.url, health_path: '/health' },
      credentials: { token: GOOD_TOKEN },
      ...extra,
    });

    it('lists every failed check of an invalid body at once, naming each field (400)', async () => {
      const cases: Array<[unknown, string[]]> = [
        [
          { integration: 'openai', integration_type: 'storage', label: 'x', config: { base_url: 'not a url', organization_id: 'bad', extra: 1 }, credentials: { api_key: 'nope' } },
          ['integration_type', 'config.base_url', 'config.organization_id', 'config', 'credentials.api_key'],
        ],
        [{ integration: 'jira', label: 'x', config: { site: 'not a host!' }, credentials: { email: 'not-an-email' } }, ['config.site', 'credentials.email', 'credentials.api_token']],
        [{ integration: 'slack', label: 'x', auth_method_id: 'carrier-pigeon', config: { team_id: 'lowercase' } }, ['auth_method_id', 'config.team_id']],
        [{ integration: 'rest-api', label: 'x', auth_method_id: 'bearer', config: {} }, ['config.base_url', 'credentials.token']],
        [{ integration: 'no-such-integration', label: 'x' }, ['integration']],
      ];
      for (const [body, fields] of cases) {
        const reply = await create(body);
        expect(reply.status).toBe(400);
        expect(reply.body.detail.message).toEqual(expect.any(String));
        const errors: string[] = reply.body.detail.errors;
        for (const field of fields) expect({ field, named: errors.some((e) => e.startsWith(`${field}:`) || e.startsWith(`${field}.`)) }).toEqual({ field, named: true });
        expect(errors.length).toBeGreaterThanOrEqual(fields.length);
        expect(JSON.stringify(reply.body)).not.toContain('nope');
      }
    });

    it('keeps request-shape failures 422 (missing label, a label over 255)', async () => {
      expect((await create({ integration: 'openai' })).status).toBe(422);
      expect((await create({ integration: 'openai', label: 'x'.repeat(256), credentials: { api_key: OPENAI_KEY } })).status).toBe(422);
    });

    it('creates with the default method, never returns a credential value, and serves get, list and list by type', async () => {
      const created = await create({ integration: 'openai', integration_type: 'model', label: 'OpenAI', credentials: { api_key: OPENAI_KEY } });
      expect(created.status).toBe(201);
      expect(created.body).toMatchObject({ integration: 'openai', integration_type: 'model', status: 'active', auth_method_id: 'api_key', credential: { fields_set: ['api_key'], hint: '…XYZW', version: 1 } });
      expect(JSON.stringify(created.body)).not.toContain(OPENAI_KEY);
      const id = created.body.id;
      const got = await call(lore(), 'GET', `/api/v1/connections/${id}`, { token });
      expect(got.body).toEqual(created.body);
      const listed = await call(lore(), 'GET', '/api/v1/connections?integration_type=model&limit=5', { token });
      expect(listed.body).toMatchObject({ total_count: 1, data: [{ id }] });
      const byType = await call(lore(), 'GET', '/api/v1/connections/integrations/model?status=active', { token });
      expect(byType.body.map((c: { id: string }) => c.id)).toEqual([id]);
      expect((await call(lore(), 'GET', '/api/v1/connections/integrations/model?status=error', { token })).body).toEqual([]);
      expect((await call(lore(), 'GET', '/api/v1/connections/integrations/robots', { token })).status).toBe(422);
      for (const reply of [got, listed, byType]) expect(JSON.stringify(reply.body)).not.toContain(OPENAI_KEY);
    });

    it("hides another user's connections (404) and checks API-key permissions", async () => {
      const mine = (await create(restApi())).body;
      const intruder = await mintJwt(lore().jwtSecret, { sub: unique('intruder'), workspace_id: unique('ws') });
      for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/test']] as const) {
        const reply = await call(lore(), method, `/api/v1/connections/${mine.id}${path}`, { token: intruder, ...(method === 'PATCH' ? { body: { label: 'mine now' } } : {}) });
        expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 });
      }
      const readOnly = (await call(lore(), 'POST', '/api/v1/api-keys', { token, body: { label: unique('key'), permissions: ['connections:read'] } })).body.key;
      expect((await create(restApi(), readOnly)).status).toBe(403);
      expect((await call(lore(), 'GET', `/api/v1/connections/${mine.id}`, { token: readOnly })).status).toBe(200);
    });

    it("never lets another member's API key act for the owner (credentials would leak)", async () => {
      const ownerSub = unique('owner');
      const workspace = unique('ws');
      const owner = await mintJwt(lore().jwtSecret, { sub: ownerSub, workspace_id: workspace });
      const member = await mintJwt(lore().jwtSecret, { sub: unique('member'), workspace_id: workspace });
      const theirs = (await create(restApi(), owner)).body;
      const memberKey = (await call(lore(), 'POST', '/api/v1/api-keys', { token: member, body: { label: unique('key'), permissions: ['*'] } })).body.key;
      const asOwner = `user_id=${ownerSub}`;
      for (const [method, path, body] of [
        ['GET', `/api/v1/connections?${asOwner}`, undefined],
        ['GET', `/api/v1/connections/${theirs.id}?${asOwner}`, undefined],
        ['PATCH', `/api/v1/connections/${theirs.id}`, { user_id: ownerSub, config: { health_path: '/collect' } }],
        ['POST', `/api/v1/connections/${theirs.id}/test?${asOwner}`, undefined],
        ['POST', '/api/v1/connections', { ...restApi(), user_id: ownerSub, credential_id: theirs.credential_id, credentials: undefined }],
      ] as const) {
        const reply = await call(lore(), method, path, { token: memberKey, ...(body === undefined ? {} : { body }) });
        expect({ method, path, status: reply.status }).toEqual({ method, path, status: 403 });
      }
      const ownKey = (await call(lore(), 'POST', '/api/v1/api-keys', { token: owner, body: { label: unique('key'), permissions: ['connections:*'] } })).body.key;
      expect((await call(lore(), 'GET', `/api/v1/connections/${theirs.id}`, { token: ownKey })).status).toBe(200);
    });

    it('tests against the provider: active, then error with the reason after a bad rotation, and refuses private addresses', async () => {
      const connection = (await create(restApi())).body;
      const ok = await call(lore(), 'POST', `/api/v1/connections/${connection.id}/test`, { token });
      expect(ok.body).toMatchObject({ success: true, status: 'active', http_status: 200, connection: { status: 'active', last_tested_at: expect.any(String) } });
      expect(provider.authorizations).toContain(`Bearer ${GOOD_TOKEN}`);

      const rotated = await call(lore(), 'PATCH', `/api/v1/connections/${connection.id}`, { token, body: { credentials: { token: 'stand-in-wrong-token-000000000' } } });
      expect(rotated.status).toBe(200);
      expect(rotated.body.credential_id).not.toBe(connection.credential_id);
      const failed = await call(lore(), 'POST', `/api/v1/connections/${connection.id}/test`, { token });
      expect(failed.body).toMatchObject({ success: false, status: 'error', http_status: 401, connection: { status: 'error', status_reason: expect.stringContaining('401') } });
      expect(JSON.stringify(failed.body)).not.toContain('stand-in-wrong-token');

      const blocked = (await create(restApi({ config: { base_url: `http://127.0.0.2:${provider.port}`, health_path: '/health' } }))).body;
      const seen = provider.authorizations.length;
      const refused = await call(lore(), 'POST', `/api/v1/connections/${blocked.id}/test`, { token });
      expect(refused.body).toMatchObject({ success: false, status: 'error', http_status: null });
      expect(refused.body.message).toMatch(/refused/);
      expect(provider.authorizations.length).toBe(seen);
    });

    it('re-validates a PATCH and keeps the connection unchanged when it fails', async () => {
      const connection = (await create(restApi())).body;
      const bad = await call(lore(), 'PATCH', `/api/v1/connections/${connection.id}`, { token, body: { config: { base_url: 'ftp://nowhere' }, credentials: {} } });
      expect(bad.status).toBe(400);
      expect(bad.body.detail.errors).toEqual(expect.arrayContaining([expect.stringMatching(/^config\.base_url/), expect.stringMatching(/^credentials\.token/)]));
      expect((await call(lore(), 'GET', `/api/v1/connections/${connection.id}`, { token })).body).toEqual(connection);
      const disabled = await call(lore(), 'PATCH', `/api/v1/connections/${connection.id}`, { token, body: { status: 'inactive', label: 'renamed', config: { health_path: null } } });
      expect(disabled.body).toMatchObject({ status: 'inactive', label: 'renamed', config: { base_url: provider.url } });
      expect(disabled.body.config).not.toHaveProperty('health_path');
    });

    it('applies a PATCH whole or not at all, and keeps a disabled connection disabled when its test passes', async () => {
      const connection = (await create(restApi())).body;
      await call(lore(), 'PATCH', `/api/v1/connections/${connection.id}`, { token, body: { credentials: { token: 'stand-in-wrong-token-111111111' } } });
      expect((await call(lore(), 'POST', `/api/v1/connections/${connection.id}/test`, { token })).body.status).toBe('error');
      const refused = await call(lore(), 'PATCH', `/api/v1/connections/${connection.id}`, { token, body: { label: 'half', status: 'active' } });
      expect(refused.status).toBe(409);
      const after = (await call(lore(), 'GET', `/api/v1/connections/${connection.id}`, { token })).body;
      expect(after).toMatchObject({ label: connection.label, status: 'error' });
      const fixed = await call(lore(), 'PATCH', `/api/v1/connections/${connection.id}`, { token, body: { credentials: { token: GOOD_TOKEN }, status: 'inactive' } });
      expect(fixed.body).toMatchObject({ status: 'inactive', status_reason: null });
      const passed = await call(lore(), 'POST', `/api/v1/connections/${connection.id}/test`, { token });
      expect(passed.body).toMatchObject({ success: true, status: 'inactive', connection: { status: 'inactive' } });
    });

    it('lists every failed check with an unusable credential_id too', async () => {
      const reply = await create({ integration: 'rest-api', label: 'x', auth_method_id: 'bearer', config: { base_url: 'notaurl', bogus: 1 }, credential_id: 'cred_nope', credentials: { token: 'x' } });
      expect(reply.status).toBe(400);
      const errors: string[] = reply.body.detail.errors;
      for (const field of ['credential_id', 'credentials', 'config.base_url', 'config']) expect({ field, named: errors.some((e) => e.startsWith(`${field}:`) || e.startsWith(`${field}.`)) }).toEqual({ field, named: true });
    });

    it('refreshes an expired OAuth2 token once for concurrent tests of connections sharing the credential', async () => {
      const gitlab = {
        integration: 'gitlab',
        auth_method_id: 'oauth2',
        config: { base_url: provider.url },
        credentials: { access_token: 'stand-in-stale-access-token-0000', refresh_token: LIVE_REFRESH_TOKEN, expires_at: '2020-01-01T00:00:00Z' },
      };
      const first = (await create({ ...gitlab, label: 'gitlab one' })).body;
      const second = (await create({ integration: 'gitlab', label: 'gitlab two', config: { base_url: provider.url }, credential_id: first.credential_id })).body;
      expect(second.credential_id).toBe(first.credential_id);
      const before = provider.refreshes.length;
      const tests = await Promise.all([first, second].map((c) => call(lore(), 'POST', `/api/v1/connections/${c.id}/test`, { token })));
      expect(provider.refreshes.length - before).toBe(1);
      for (const reply of tests) expect(reply.body).toMatchObject({ success: true, status: 'active' });
      expect(tests.filter((reply) => reply.body.token_refreshed === true).length).toBeGreaterThanOrEqual(1);
      expect((await call(lore(), 'GET', `/api/v1/connections/${first.id}`, { token })).body.credential.version).toBe(2);
      expect(provider.authorizations).toContain(`Bearer ${FRESH_ACCESS_TOKEN}`);

      const dead = (await create({ ...gitlab, label: 'gitlab dead', credentials: { ...gitlab.credentials, refresh_token: 'stand-in-revoked-refresh-token' } })).body;
      expect((await call(lore(), 'POST', `/api/v1/connections/${dead.id}/test`, { token })).body).toMatchObject({ success: false, status: 'expired' });
      const { refresh_token: _none, ...withoutRefresh } = gitlab.credentials;
      const noRefresh = await create({ ...gitlab, label: 'gitlab no refresh', credentials: withoutRefresh });
      expect(noRefresh.status).toBe(400);
      expect(noRefresh.body.detail.errors).toEqual([expect.stringMatching(/^credentials\.expires_at/)]);
    });

    it('shreds a credential when its last connection is deleted, not before', async () => {
      const first = (await create(restApi())).body;
      const second = (await create({ integration: 'rest-api', label: 'shared', auth_method_id: 'bearer', config: { base_url: provider.url, health_path: '/health' }, credential_id: first.credential_id })).body;
      expect((await call(lore(), 'DELETE', `/api/v1/connections/${first.id}`, { token })).body).toMatchObject({ credential_erased: false });
      expect((await call(lore(), 'POST', `/api/v1/connections/${second.id}/test`, { token })).body.success).toBe(true);
      expect((await call(lore(), 'DELETE', `/api/v1/connections/${second.id}`, { token })).body).toMatchObject({ credential_erased: true });
      expect((await call(lore(), 'GET', `/api/v1/connections/${second.id}`, { token })).status).toBe(404);
      // A repeated delete is 404, as for every other resource.
      const again = await call(lore(), 'DELETE', `/api/v1/connections/${second.id}`, { token });
      expect(again.status).toBe(404);
      expect(again.body).toEqual({ detail: expect.stringMatching(/Connection not found/i) });
      const reuse = await create({ integration: 'rest-api', label: 'too late', auth_method_id: 'bearer', config: { base_url: provider.url }, credential_id: first.credential_id });
      expect(reuse.status).toBe(400);
      expect(reuse.body.detail.errors).toEqual([expect.stringMatching(/^credential_id/)]);
    });
  });
}
