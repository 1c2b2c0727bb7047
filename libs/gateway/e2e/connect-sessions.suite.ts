import { until } from '@lore/platform/testing';
import { call, mintJwt, unique, type LoreUnderTest, type Reply } from './e2e-client';
import { CONNECT_TEST_APP, type OAuthAuthorizationServer } from './oauth-authorization-server';
import { WebhookReceiver } from './webhook-receiver';

/** One step of a browser: a GET that does not follow redirects; answers the Location (or null) and the reply. */
async function visit(url: string): Promise<{ status: number; location: string | null; body: string }> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

/** The outcome query an application reads on its redirect URL. */
function outcome(location: string | null): Record<string, string> {
  expect(location).not.toBeNull();
  const url = new URL(location ?? '');
  expect(`${url.origin}${url.pathname}`).toBe(`${CONNECT_TEST_APP}/connected`);
  return Object.fromEntries(url.searchParams);
}

/**
 * Connect sessions (README, "Connect sessions (OAuth)") end to end, the test playing the user's
 * browser between Lore and a local OAuth 2.0 authorization server (oauth-authorization-server.ts),
 * and the health check over time. The deployment runs with `connectTestEnv`.
 */
export function describeConnectSessions(lore: () => LoreUnderTest, oauth: () => OAuthAuthorizationServer): void {
  describe('connect sessions (OAuth)', () => {
    let token: string;
    beforeAll(async () => {
      token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
    });

    const newSession = (body: Record<string, unknown> = {}, as = token): Promise<Reply> =>
      call(lore(), 'POST', '/api/v1/connect/sessions', { token: as, body: { integration: 'gitlab', redirect_url: `${CONNECT_TEST_APP}/connected?tab=integrations`, scopes: ['read_api', 'read_user'], ...body } });
    const session = async (id: string, as = token) => (await call(lore(), 'GET', `/api/v1/connect/sessions/${id}`, { token: as })).body;
    const connections = async (as = token) => (await call(lore(), 'GET', '/api/v1/connections?integration=gitlab', { token: as })).body.data as Array<{ id: string }>;
    /** The user at the provider: Lore's one-time URL, then the authorization page; answers where the provider sends the browser back. */
    const toProvider = async (connectUrl: string): Promise<string> => {
      const atLore = await visit(connectUrl);
      expect(atLore.status).toBe(302);
      const atProvider = await visit(atLore.location ?? '');
      expect(atProvider.status).toBe(302);
      return atProvider.location ?? '';
    };
    const noSecretIn = (...texts: unknown[]): void => {
      const all = texts.map((t) => (typeof t === 'string' ? t : JSON.stringify(t))).join('\n');
      for (const value of oauth().secrets()) expect({ leaked: all.includes(value) }).toEqual({ leaked: false });
    };

    it('runs the authorization code flow with state and PKCE S256, connects, tests, and sends the user back with the outcome', async () => {
      const created = await newSession();
      expect(created.status).toBe(201);
      const s = created.body;
      expect(s).toMatchObject({ integration: 'gitlab', auth_method_id: 'oauth2', status: 'pending', scopes: ['read_api', 'read_user'], connection_id: null, error: null });
      const connectUrl = new URL(s.connect_url);
      expect(`${connectUrl.origin}${connectUrl.pathname}`).toBe(`${lore().url}/api/v1/connect/sessions/${s.id}/authorize`);
      expect((await session(s.id)).connect_url).toBeNull();

      const atLore = await visit(s.connect_url);
      expect(atLore.status).toBe(302);
      const authorize = new URL(atLore.location ?? '');
      expect(`${authorize.origin}${authorize.pathname}`).toBe(`${oauth().url}/oauth/authorize`);
      const q = authorize.searchParams;
      expect({ response_type: q.get('response_type'), client_id: q.get('client_id'), redirect_uri: q.get('redirect_uri'), scope: q.get('scope'), method: q.get('code_challenge_method') }).toEqual({
        response_type: 'code',
        client_id: oauth().clientId,
        redirect_uri: `${lore().url}/api/v1/connect/callback`,
        scope: 'read_api read_user',
        method: 'S256',
      });
      expect(q.get('state')).toMatch(new RegExp(`^${s.id}\\.[A-Za-z0-9_-]{43}$`));
      expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect((await session(s.id)).status).toBe('authorizing');

      const atProvider = await visit(atLore.location ?? '');
      const callback = await visit(atProvider.location ?? '');
      expect(callback.status).toBe(302);
      const back = outcome(callback.location);
      expect(back).toMatchObject({ tab: 'integrations', status: 'success', session_id: s.id, connection_id: expect.stringMatching(/^conn_/) });
      expect(oauth().tokenRequests.at(-1)).toEqual({ grant: 'authorization_code', pkceVerified: true, error: null });

      const done = await session(s.id);
      expect(done).toMatchObject({ status: 'completed', connection_id: back['connection_id'], connection_status: 'active', error: null, ended_at: expect.any(String) });
      const connection = (await call(lore(), 'GET', `/api/v1/connections/${back['connection_id']}`, { token })).body;
      expect(connection).toMatchObject({ integration: 'gitlab', auth_method_id: 'oauth2', status: 'active', config: { base_url: oauth().url }, credential: { fields_set: ['access_token', 'expires_at', 'refresh_token', 'token_type'] } });

      // The same callback again, and the one-time URL again: nothing runs twice.
      const before = (await connections()).length;
      expect(outcome((await visit(atProvider.location ?? '')).location)).toMatchObject({ status: 'error', error: 'session_already_used', session_id: s.id });
      expect(outcome((await visit(s.connect_url)).location)).toMatchObject({ status: 'error', error: 'session_already_used' });
      expect((await connections()).length).toBe(before);
      expect((await session(s.id)).status).toBe('completed');
      noSecretIn(created.body, done, connection, callback.location, atLore.location);
    });

    it('reconnects an existing connection with new tokens instead of making another', async () => {
      const first = outcome(await visit(await toProvider((await newSession()).body.connect_url)).then((r) => r.location));
      const count = (await connections()).length;
      const again = (await newSession({ connection_id: first['connection_id'] })).body;
      const back = outcome((await visit(await toProvider(again.connect_url))).location);
      expect(back).toMatchObject({ status: 'success', connection_id: first['connection_id'] });
      expect((await connections()).length).toBe(count);
    });

    it.each([
      ['access_denied', 'access_denied', /declined/],
      ['server_error', 'provider_error', /server_error/],
    ] as const)('ends a provider error redirect (%s, RFC 6749 §4.1.2.1) as %s, with no connection', async (providerError, code, message) => {
      const before = (await connections()).length;
      const s = (await newSession()).body;
      oauth().nextAuthorization = providerError;
      const returned = new URL(await toProvider(s.connect_url));
      expect(returned.searchParams.get('error')).toBe(providerError);
      expect(outcome((await visit(returned.toString())).location)).toMatchObject({ status: 'error', error: code, session_id: s.id });
      expect(await session(s.id)).toMatchObject({ status: 'failed', connection_id: null, error: { code, message: expect.stringMatching(message) } });
      expect((await connections()).length).toBe(before);
    });

    it('ends a token endpoint error (RFC 6749 §5.2) as token_exchange_failed, quoting the error but not the code', async () => {
      const before = (await connections()).length;
      const s = (await newSession()).body;
      const returned = await toProvider(s.connect_url);
      oauth().nextExchange = 'invalid_grant';
      expect(outcome((await visit(returned)).location)).toMatchObject({ status: 'error', error: 'token_exchange_failed' });
      const failed = await session(s.id);
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'token_exchange_failed', message: expect.stringContaining('invalid_grant') } });
      noSecretIn(failed);
      expect((await connections()).length).toBe(before);
    });

    it('refuses a mismatched state (and the real callback after it), an unknown state, a wrong link token and a redirect URL not allowed', async () => {
      const before = (await connections()).length;
      const s = (await newSession()).body;
      const returned = new URL(await toProvider(s.connect_url));
      const forged = new URL(returned);
      forged.searchParams.set('state', `${s.id}.${'A'.repeat(43)}`);
      expect(outcome((await visit(forged.toString())).location)).toMatchObject({ status: 'error', error: 'state_mismatch' });
      expect(outcome((await visit(returned.toString())).location)).toMatchObject({ status: 'error', error: 'session_already_used' });
      expect((await session(s.id)).error.code).toBe('state_mismatch');
      expect((await connections()).length).toBe(before);

      const unknown = await visit(`${lore().url}/api/v1/connect/callback?state=cs_nope.x&code=abc`);
      expect(unknown.status).toBe(400);
      expect(unknown.location).toBeNull();
      expect(JSON.parse(unknown.body)).toEqual({ detail: expect.anything() });
      const other = (await newSession()).body;
      const wrongToken = await visit(`${lore().url}/api/v1/connect/sessions/${other.id}/authorize?token=${'B'.repeat(43)}`);
      expect({ status: wrongToken.status, location: wrongToken.location }).toEqual({ status: 404, location: null });
      expect((await session(other.id)).status).toBe('pending');

      for (const redirect of ['https://app.example.evil.test/connected', 'https://app.example/elsewhere', 'javascript:alert(1)']) {
        const refused = await newSession({ redirect_url: redirect });
        expect(refused.status).toBe(400);
        expect(refused.body.detail.errors).toEqual([expect.stringMatching(/^redirect_url:/)]);
      }
      const noApp = await newSession({ integration: 'github' });
      expect(noApp.status).toBe(400);
      expect(noApp.body.detail.errors).toEqual([expect.stringMatching(/^integration: no OAuth app/)]);
      const intruder = await mintJwt(lore().jwtSecret, { sub: unique('intruder'), workspace_id: unique('ws') });
      expect((await call(lore(), 'GET', `/api/v1/connect/sessions/${other.id}`, { token: intruder })).status).toBe(404);
    });

    it('ends an expired session as session_expired, at the visit and at the callback', async () => {
      const unvisited = (await newSession({ expires_in: 1 })).body;
      await until(async () => (await session(unvisited.id)).status, (v) => v === 'expired', 5_000);
      expect(outcome((await visit(unvisited.connect_url)).location)).toMatchObject({ status: 'error', error: 'session_expired' });
      expect((await session(unvisited.id)).error.code).toBe('session_expired');

      const slow = (await newSession({ expires_in: 2 })).body;
      const returned = await toProvider(slow.connect_url);
      await until(async () => (await session(slow.id)).status, (v) => v === 'expired', 6_000);
      expect(outcome((await visit(returned)).location)).toMatchObject({ status: 'error', error: 'session_expired' });
      expect(await session(slow.id)).toMatchObject({ status: 'failed', connection_id: null, error: { code: 'session_expired' } });
    });

    it('checks connections over time: refreshes a token before it expires, and says when one fails, recovers or expires (connection.status_changed)', async () => {
      const workspace = unique('health-ws');
      const owner = await mintJwt(lore().jwtSecret, { sub: unique('health-user'), workspace_id: workspace });
      const receiver = await WebhookReceiver.start();
      try {
        expect((await call(lore(), 'POST', '/api/v1/webhooks', { token: owner, body: { url: receiver.url(), event_types: ['connection.status_changed'] } })).status).toBe(201);
        oauth().accessTokenLifetimeS = 90;
        const s = (await newSession({}, owner)).body;
        const id = outcome((await visit(await toProvider(s.connect_url))).location)['connection_id'] ?? '';
        const connection = async () => (await call(lore(), 'GET', `/api/v1/connections/${id}`, { token: owner })).body;
        // Expiring within CONNECTION_REFRESH_AHEAD_MS: the health check refreshes it (refresh_token grant).
        await until(async () => (await connection()).credential.version, (v) => v >= 2, 10_000);
        oauth().accessTokenLifetimeS = 7200;

        const changes = (): Array<{ from: string; to: string; reason: string | null }> =>
          receiver.received.map((r) => JSON.parse(r.body).data).filter((d) => d.connection_id === id && d.status.from !== 'testing' && d.status.to !== 'testing').map((d) => d.status);
        oauth().apiUp = false;
        await until(async () => (await connection()).status, (v) => v === 'error', 10_000);
        expect((await connection()).status_reason).toMatch(/503/);
        oauth().apiUp = true;
        await until(async () => (await connection()).status, (v) => v === 'active', 10_000);
        oauth().revokeAll();
        await until(async () => (await connection()).status, (v) => v === 'expired', 10_000);
        await until(async () => changes().length, (v) => v >= 3, 10_000);
        expect(changes()).toEqual([
          { from: 'active', to: 'error', reason: expect.stringMatching(/HTTP 503/) },
          { from: 'error', to: 'active', reason: null },
          { from: 'active', to: 'expired', reason: expect.stringMatching(/invalid_grant/) },
        ]);
        noSecretIn(receiver.received.map((r) => r.body), await connection());
      } finally {
        oauth().apiUp = true;
        await receiver.close();
      }
    });
  });
}
