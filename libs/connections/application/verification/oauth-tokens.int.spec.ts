/**
 * The token grants against small local token endpoints (node:http on 127.0.0.1), through the real
 * SSRF-guarded egress with 127.0.0.1 allowed. Each endpoint checks what a provider would check.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify } from 'jose';
import type { IntegrationRecord } from '@lore/connections/contracts';
import { EgressRefused } from '@lore/platform/egress/port';
import { createNodeEgress } from '@lore/platform/egress/node';
import { clientCredentialsToken, exchangeAuthorizationCode, jwtBearerToken, refreshAccessToken, tokenRequester } from './oauth-tokens';

type AuthMethod = IntegrationRecord['auth_methods'][number];
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void | Promise<void>;

const egress = createNodeEgress({ allow: ['127.0.0.1'] });
const NOW = new Date('2025-06-01T12:00:00Z');
const CLIENT_SECRET = 'cs-9f3Kq-DO-NOT-LEAK-e21a';
const REFRESH = 'rt-old-5d7e-DO-NOT-LEAK';

const servers: Array<ReturnType<typeof createServer>> = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
});

/** A local provider; answers with `handler` once the request body is read. Returns its base URL. */
async function provider(handler: Handler): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

type OAuth2 = NonNullable<AuthMethod['oauth2']>;

function oauthMethod(oauth2: { grant_type: OAuth2['grant_type']; scopes?: string[]; [key: string]: unknown }, fields: string[], secret: string[]): AuthMethod {
  const properties = Object.fromEntries(fields.map((f) => [f, { type: 'string', title: f }]));
  return { id: 'm', type: 'oauth2', label: 'M', fields: { type: 'object', properties }, secret_fields: secret, oauth2: { scopes: [], ...oauth2 } };
}

describe('clientCredentialsToken', () => {
  it('posts the form (client_secret_post) and reads the token', async () => {
    const base = await provider((_req, body, res) => {
      const form = Object.fromEntries(new URLSearchParams(body));
      if (form['grant_type'] !== 'client_credentials' || form['client_id'] !== 'app' || form['client_secret'] !== CLIENT_SECRET || form['scope'] !== 'a b') {
        return json(res, 400, { error: 'invalid_request' });
      }
      json(res, 200, { access_token: 'at-1', token_type: 'Bearer', expires_in: 3600 });
    });
    const method = oauthMethod({ grant_type: 'client_credentials', token_url: `${base}/token`, scopes: ['a', 'b'] }, ['client_id', 'client_secret'], ['client_secret']);
    const result = await clientCredentialsToken(method, {}, { client_id: 'app', client_secret: CLIENT_SECRET }, egress, NOW);
    expect(result).toEqual({ ok: true, token: { access_token: 'at-1', token_type: 'Bearer', expires_at: '2025-06-01T13:00:00.000Z' } });
  });

  it('authenticates with client_secret_basic and reads a form-encoded answer', async () => {
    const base = await provider((req, body, res) => {
      const expected = `Basic ${Buffer.from(`app:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`;
      if (req.headers.authorization !== expected || body.includes('client_secret')) return json(res, 401, { error: 'invalid_client' });
      res.writeHead(200, { 'content-type': 'application/x-www-form-urlencoded' }).end('access_token=at-2&token_type=bearer&expires_in=60');
    });
    const method = oauthMethod(
      { grant_type: 'client_credentials', token_url: '{{config.base}}/token', token_auth_method: 'client_secret_basic' },
      ['client_id', 'client_secret'],
      ['client_secret'],
    );
    const result = await clientCredentialsToken(method, { base }, { client_id: 'app', client_secret: CLIENT_SECRET }, egress, NOW);
    expect(result).toEqual({ ok: true, token: { access_token: 'at-2', token_type: 'bearer', expires_at: '2025-06-01T12:01:00.000Z' } });
  });

  it("quotes the provider's error but never the secret it echoes", async () => {
    const base = await provider((_req, body, res) => {
      const form = new URLSearchParams(body);
      json(res, 401, { error: 'invalid_client', error_description: `client secret ${form.get('client_secret') ?? ''} is wrong` });
    });
    const method = oauthMethod({ grant_type: 'client_credentials', token_url: `${base}/token` }, ['client_id', 'client_secret'], ['client_secret']);
    const result = await clientCredentialsToken(method, {}, { client_id: 'app', client_secret: CLIENT_SECRET }, egress, NOW);
    expect(result).toEqual({
      ok: false,
      status: 401,
      invalidGrant: false,
      error: `the token endpoint ${base.slice(7)} answered HTTP 401 (invalid_client: client secret [redacted] is wrong)`,
    });
  });

  it('names a missing config value of the token URL', async () => {
    const method = oauthMethod({ grant_type: 'client_credentials', token_url: 'https://{{config.tenant}}.example.com/token' }, ['client_id', 'client_secret'], ['client_secret']);
    const result = await clientCredentialsToken(method, {}, { client_id: 'a', client_secret: CLIENT_SECRET }, egress, NOW);
    expect(result).toEqual({ ok: false, status: null, invalidGrant: false, error: 'config.tenant is not set' });
  });

  it('times out on an endpoint that never answers', async () => {
    const base = await provider(() => undefined);
    const method = oauthMethod({ grant_type: 'client_credentials', token_url: `${base}/token` }, ['client_id', 'client_secret'], ['client_secret']);
    const result = await clientCredentialsToken(method, {}, { client_id: 'a', client_secret: CLIENT_SECRET }, egress, NOW, { timeoutMs: 200 });
    expect(result).toMatchObject({ ok: false, status: null, error: expect.stringContaining('timed out after 200 ms') });
  });
});

describe('jwtBearerToken', () => {
  const { publicKey, privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  const email = 'reader@project.iam.gserviceaccount.com';

  it('signs an RS256 assertion the token endpoint can verify', async () => {
    const now = new Date();
    let url = '';
    url = `${await provider(async (_req, body, res) => {
      const form = new URLSearchParams(body);
      if (form.get('grant_type') !== 'urn:ietf:params:oauth:grant-type:jwt-bearer') return json(res, 400, { error: 'unsupported_grant_type' });
      try {
        const { payload, protectedHeader } = await jwtVerify(form.get('assertion') ?? '', await importSPKI(publicKey, 'RS256'), {
          issuer: email,
          audience: url,
          currentDate: now,
        });
        if (payload.scope !== 'https://scope/a https://scope/b' || protectedHeader.kid !== 'a'.repeat(40)) throw new Error('claims');
        if ((payload.exp ?? 0) - (payload.iat ?? 0) !== 3600) throw new Error('lifetime');
        json(res, 200, { access_token: 'ya29.token', expires_in: 3599, token_type: 'Bearer' });
      } catch (error) {
        json(res, 400, { error: 'invalid_grant', error_description: String(error) });
      }
    })}/token`;
    const method = oauthMethod(
      { grant_type: 'jwt_bearer', token_url: url, scopes: ['https://scope/a', 'https://scope/b'] },
      ['client_email', 'private_key_id', 'private_key'],
      ['private_key'],
    );
    const credentials = { client_email: email, private_key_id: 'a'.repeat(40), private_key: privateKey };
    const result = await jwtBearerToken(method, {}, credentials, egress, now);
    expect(result).toMatchObject({ ok: true, token: { access_token: 'ya29.token', token_type: 'Bearer' } });
  });

  it('refuses a key that is not PKCS#8 PEM without quoting it', async () => {
    const method = oauthMethod({ grant_type: 'jwt_bearer', token_url: 'https://oauth2.example.com/token' }, ['client_email', 'private_key'], ['private_key']);
    const key = '-----BEGIN PRIVATE KEY-----\nnot-a-key-DO-NOT-LEAK\n-----END PRIVATE KEY-----';
    const result = await jwtBearerToken(method, {}, { client_email: email, private_key: key }, egress, NOW);
    expect(result).toEqual({ ok: false, status: null, invalidGrant: false, error: 'credentials.private_key is not a valid PKCS#8 RSA private key (PEM)' });
  });
});

describe('refreshAccessToken', () => {
  const fields = ['access_token', 'refresh_token', 'expires_at', 'token_type'];
  const secrets = ['access_token', 'refresh_token'];

  it('sends the refresh token with the app client (client_secret_basic) and returns the rotated one', async () => {
    const base = await provider((req, body, res) => {
      const form = new URLSearchParams(body);
      const basic = `Basic ${Buffer.from(`lore-app:${encodeURIComponent(CLIENT_SECRET)}`).toString('base64')}`;
      if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== REFRESH || req.headers.authorization !== basic) {
        return json(res, 400, { error: 'invalid_request' });
      }
      json(res, 200, { access_token: 'at-new', refresh_token: 'rt-new', expires_in: '7200', token_type: 'Bearer' });
    });
    const method = oauthMethod(
      { grant_type: 'authorization_code', authorization_url: `${base}/authorize`, token_url: `${base}/token`, token_auth_method: 'client_secret_basic' },
      fields,
      secrets,
    );
    const credentials = { access_token: 'at-old', refresh_token: REFRESH, token_type: 'Bearer' };
    const result = await refreshAccessToken(method, {}, credentials, egress, NOW, { client: { client_id: 'lore-app', client_secret: CLIENT_SECRET } });
    expect(result).toEqual({
      ok: true,
      token: { access_token: 'at-new', refresh_token: 'rt-new', token_type: 'Bearer', expires_at: '2025-06-01T14:00:00.000Z' },
    });
  });

  it('reports invalid_grant, without the refresh token it sent', async () => {
    const base = await provider((_req, body, res) => {
      json(res, 400, { error: 'invalid_grant', error_description: `refresh token ${new URLSearchParams(body).get('refresh_token') ?? ''} was revoked` });
    });
    const method = oauthMethod({ grant_type: 'authorization_code', authorization_url: `${base}/a`, token_url: `${base}/token` }, fields, secrets);
    const result = await refreshAccessToken(method, {}, { access_token: 'at', refresh_token: REFRESH }, egress, NOW);
    expect(result).toMatchObject({ ok: false, status: 400, invalidGrant: true });
    expect(!result.ok && result.error).toContain('invalid_grant: refresh token [redacted] was revoked');
    expect(JSON.stringify(result)).not.toContain(REFRESH);
  });
});

describe('tokenRequester (the validator’s requestToken)', () => {
  it('answers ok, or the provider’s error masked; throws when the endpoint cannot be reached', async () => {
    const base = await provider((_req, body, res) => {
      const form = new URLSearchParams(body);
      if (form.get('client_secret') === CLIENT_SECRET) return json(res, 200, { access_token: 'x' });
      json(res, 401, { error: 'invalid_client', error_description: `bad secret ${form.get('client_secret') ?? ''}` });
    });
    const request = tokenRequester(egress);
    await expect(request(`${base}/token`, { grant_type: 'client_credentials', client_id: 'a', client_secret: CLIENT_SECRET })).resolves.toEqual({ ok: true, status: 200 });
    await expect(request(`${base}/token`, { grant_type: 'client_credentials', client_id: 'a', client_secret: 'wrong-secret-123' })).resolves.toEqual({
      ok: false,
      status: 401,
      error: 'invalid_client: bad secret [redacted]',
    });
    await expect(tokenRequester(createNodeEgress())(`${base}/token`, { grant_type: 'client_credentials' })).rejects.toBeInstanceOf(EgressRefused);
  });
});

describe('exchangeAuthorizationCode', () => {
  const CODE = 'code-DO-NOT-LEAK-7c1e';
  const VERIFIER = 'v'.repeat(43);

  it("reads the token where the catalog says: Slack's user token under authed_user, with its token type", async () => {
    // Slack's oauth.v2.access answer for user scopes (https://api.slack.com/methods/oauth.v2.access).
    const base = await provider((_req, body, res) => {
      const form = Object.fromEntries(new URLSearchParams(body));
      if (form['grant_type'] !== 'authorization_code' || form['code'] !== CODE || form['code_verifier'] !== VERIFIER || form['redirect_uri'] !== 'https://lore.example/api/v1/connect/callback') return json(res, 400, { ok: false, error: 'invalid_code' });
      json(res, 200, { ok: true, app_id: 'A1', authed_user: { id: 'U1', scope: 'search:read', access_token: 'xoxp-user-token', token_type: 'user', refresh_token: 'xoxe-1-refresh', expires_in: 43200 }, team: { id: 'T1' } });
    });
    const slack = { access_token: '/authed_user/access_token', refresh_token: '/authed_user/refresh_token', expires_in: '/authed_user/expires_in', token_type_field: '/authed_user/token_type', token_type: 'user' };
    const method = oauthMethod({ grant_type: 'authorization_code', token_url: `${base}/api/oauth.v2.access` }, ['access_token'], ['access_token']);
    const grant = { code: CODE, redirectUri: 'https://lore.example/api/v1/connect/callback', codeVerifier: VERIFIER };
    const client = { client_id: 'app', client_secret: CLIENT_SECRET };
    const got = await exchangeAuthorizationCode(method, {}, grant, egress, NOW, { client, shape: slack });
    expect(got).toEqual({ ok: true, token: { access_token: 'xoxp-user-token', refresh_token: 'xoxe-1-refresh', token_type: 'user', expires_at: '2025-06-02T00:00:00.000Z' } });
    // Read at the top level (no shape), the same answer has no token; another expected type is refused.
    expect(await exchangeAuthorizationCode(method, {}, grant, egress, NOW, { client })).toMatchObject({ ok: false, error: expect.stringContaining('without an access token') });
    expect(await exchangeAuthorizationCode(method, {}, grant, egress, NOW, { client, shape: { ...slack, token_type: 'bot' } })).toMatchObject({ ok: false, error: expect.stringContaining('"user", not "bot"') });
  });

  it('reports an RFC 6749 §5.2 error without the code, the verifier or the client secret', async () => {
    const base = await provider((_req, body, res) => json(res, 400, { error: 'invalid_grant', error_description: `bad code ${new URLSearchParams(body).get('code')} / ${new URLSearchParams(body).get('code_verifier')}` }));
    const method = oauthMethod({ grant_type: 'authorization_code', token_url: `${base}/token` }, ['access_token'], ['access_token']);
    const got = await exchangeAuthorizationCode(method, {}, { code: CODE, redirectUri: 'https://x.example/cb', codeVerifier: VERIFIER }, egress, NOW, { client: { client_id: 'app', client_secret: CLIENT_SECRET } });
    expect(got).toMatchObject({ ok: false, status: 400, invalidGrant: true, error: expect.stringContaining('invalid_grant') });
    if (!got.ok) for (const secret of [CODE, VERIFIER, CLIENT_SECRET]) expect(got.error).not.toContain(secret);
  });
});
