/**
 * runVerification against local stand-ins for vendors (node:http on 127.0.0.1) through the real
 * egress. Catalog methods whose URL comes from the config (rest-api, salesforce client_credentials)
 * are used as they are; the rest are built here. Every reason produced is collected and checked
 * at the end for the secrets used.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { importSPKI, jwtVerify } from 'jose';
import type { IntegrationRecord } from '@lore/connections/contracts';
import { createNodeEgress } from '@lore/platform/egress/node';
import { CATALOG } from '../catalog/catalog-entries';
import type { VerificationInput, VerificationResult } from './verify-connection';
import { NO_VERIFICATION_REASON, runVerification } from './verify-connection';

type AuthMethod = IntegrationRecord['auth_methods'][number];
type Handler = (req: IncomingMessage, body: string, res: ServerResponse) => void | Promise<void>;

const egress = createNodeEgress({ allow: ['127.0.0.1'] });
const NOW = new Date('2025-06-01T12:00:00Z');
const API_KEY = 'key-41ce-DO-NOT-LEAK-90ab';
const PASSWORD = 'pw-77d1-DO-NOT-LEAK';
const CLIENT_SECRET = 'cs-0b3e-DO-NOT-LEAK-4411';
const ACCESS_TOKEN = 'at-a5f0-DO-NOT-LEAK-c1d2';
const SECRETS = [API_KEY, PASSWORD, CLIENT_SECRET, ACCESS_TOKEN];
const reasons: string[] = [];

const servers: Array<ReturnType<typeof createServer>> = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => new Promise((done) => s.close(done))));
});

async function provider(handler: Handler): Promise<{ base: string; host: string; hits: string[] }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method ?? ''} ${req.url ?? ''}`);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handler(req, Buffer.concat(chunks).toString('utf8'), res));
  });
  servers.push(server);
  await new Promise<void>((ready) => server.listen(0, '127.0.0.1', ready));
  const host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base: `http://${host}`, host, hits };
}

const json = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
};

function catalog(entryId: string, methodId: string): { entry: IntegrationRecord; method: AuthMethod } {
  const entry = CATALOG.find((e) => e.id === entryId) as IntegrationRecord;
  return { entry, method: entry.auth_methods.find((m) => m.id === methodId) as AuthMethod };
}

/** An entry with no config schema of note, holding `method`. */
function custom(method: Partial<AuthMethod> & Pick<AuthMethod, 'type' | 'secret_fields'>): { entry: IntegrationRecord; method: AuthMethod } {
  const full = { id: 'm', label: 'M', fields: { type: 'object', properties: {} }, ...method } as AuthMethod;
  const entry = { ...catalog('rest-api', 'bearer').entry, config_schema: { type: 'object', properties: {} }, auth_methods: [full] };
  return { entry, method: full };
}

async function verify(input: Omit<VerificationInput, 'egress' | 'now'> & { egress?: VerificationInput['egress'] }): Promise<VerificationResult> {
  const result = await runVerification({ egress, now: NOW, ...input });
  if (result.reason) reasons.push(result.reason);
  return result;
}

describe('runVerification', () => {
  it('api key header (rest-api, header name and path from the schema defaults) → active', async () => {
    const vendor = await provider((req, _body, res) =>
      req.url === '/' && req.headers['x-api-key'] === API_KEY ? json(res, 200, { ok: true }) : json(res, 401, {}),
    );
    const result = await verify({ ...catalog('rest-api', 'api_key_header'), config: { base_url: vendor.base }, credentials: { api_key: API_KEY } });
    expect(result).toMatchObject({ outcome: 'active', reason: null, httpStatus: 200 });
    expect(result.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('401 → error naming the status and the host', async () => {
    const vendor = await provider((_req, _body, res) => json(res, 401, { message: `bad key ${API_KEY}` }));
    const result = await verify({ ...catalog('rest-api', 'bearer'), config: { base_url: vendor.base, health_path: '/me' }, credentials: { token: API_KEY } });
    expect(result).toMatchObject({ outcome: 'error', httpStatus: 401, reason: `HTTP 401 from ${vendor.host} (expected 200)` });
  });

  it('expect_json: a 200 that says no is an error; one that says yes is active', async () => {
    const vendor = await provider((req, _body, res) =>
      req.headers.authorization === `Bearer ${API_KEY}` ? json(res, 200, { ok: true }) : json(res, 200, { ok: false, error: 'invalid_auth' }),
    );
    const { entry, method } = custom({
      type: 'api_key',
      secret_fields: ['bot_token'],
      verification: { method: 'POST', url: '{{config.base_url}}/api/auth.test', headers: { Authorization: 'Bearer {{credentials.bot_token}}' }, expect_status: [200], expect_json: { pointer: '/ok', equals: true } },
    });
    const bad = await verify({ entry, method, config: { base_url: vendor.base }, credentials: { bot_token: 'xoxb-wrong-1234' } });
    expect(bad).toMatchObject({ outcome: 'error', httpStatus: 200 });
    expect(bad.reason).toBe(`expected /ok to equal true in the answer from ${vendor.host} (got false, error "invalid_auth")`);
    const good = await verify({ entry, method, config: { base_url: vendor.base }, credentials: { bot_token: API_KEY } });
    expect(good).toMatchObject({ outcome: 'active', httpStatus: 200 });
  });

  it('rest-api basic sends the right Authorization header', async () => {
    let seen = '';
    const vendor = await provider((req, _body, res) => {
      seen = req.headers.authorization ?? '';
      json(res, 200, {});
    });
    const result = await verify({ ...catalog('rest-api', 'basic'), config: { base_url: vendor.base }, credentials: { username: 'ada', password: PASSWORD } });
    expect(result.outcome).toBe('active');
    expect(seen).toBe(`Basic ${Buffer.from(`ada:${PASSWORD}`).toString('base64')}`);
  });

  describe('client_credentials (salesforce, instance_url pointed at a local server)', () => {
    const salesforce = catalog('salesforce', 'client_credentials');
    const server = () =>
      provider((req, body, res) => {
        if (req.url === '/services/oauth2/token') {
          const form = new URLSearchParams(body);
          if (form.get('grant_type') !== 'client_credentials' || form.get('client_id') !== 'app' || form.get('client_secret') !== CLIENT_SECRET) {
            return json(res, 400, { error: 'invalid_client', error_description: `unknown secret ${form.get('client_secret') ?? ''}` });
          }
          return json(res, 200, { access_token: ACCESS_TOKEN, token_type: 'Bearer' });
        }
        const authorized = req.url === '/services/data/v62.0/limits' && req.headers.authorization === `Bearer ${ACCESS_TOKEN}`;
        json(res, authorized ? 200 : 401, {});
      });

    it('obtains a token, then the API accepts it → active, with the token', async () => {
      const vendor = await server();
      const result = await verify({ ...salesforce, config: { instance_url: vendor.base }, credentials: { client_id: 'app', client_secret: CLIENT_SECRET } });
      expect(result).toMatchObject({ outcome: 'active', httpStatus: 200, token: { access_token: ACCESS_TOKEN, expires_at: null } });
    });

    it('a bad client secret → error from the token endpoint, the API never called', async () => {
      const vendor = await server();
      const result = await verify({ ...salesforce, config: { instance_url: vendor.base }, credentials: { client_id: 'app', client_secret: 'wrong-secret-9876' } });
      expect(result).toMatchObject({ outcome: 'error', httpStatus: 400 });
      expect(result.reason).toBe(
        `could not obtain an access token: the token endpoint ${vendor.host} answered HTTP 400 (invalid_client: unknown secret [redacted])`,
      );
      expect(vendor.hits).toEqual(['POST /services/oauth2/token']);
    });
  });

  it('jwt_bearer: the token server verifies the signed assertion → active', async () => {
    const { publicKey, privateKey } = generateKeyPairSync('rsa', {
      modulusLength: 2048,
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    });
    const email = 'sa@p.iam.gserviceaccount.com';
    const now = new Date();
    const vendor = await provider(async (req, body, res) => {
      if (req.url === '/token') {
        const assertion = new URLSearchParams(body).get('assertion') ?? '';
        try {
          await jwtVerify(assertion, await importSPKI(publicKey, 'RS256'), { issuer: email, audience: `${vendor.base}/token`, currentDate: now });
          return json(res, 200, { access_token: ACCESS_TOKEN, expires_in: 3600 });
        } catch {
          return json(res, 400, { error: 'invalid_grant' });
        }
      }
      json(res, req.headers.authorization === `Bearer ${ACCESS_TOKEN}` && req.url === '/storage/v1/b/bkt' ? 200 : 403, {});
    });
    const { entry, method } = custom({
      type: 'oauth2',
      secret_fields: ['private_key'],
      oauth2: { grant_type: 'jwt_bearer', token_url: '{{config.base_url}}/token', scopes: ['https://www.googleapis.com/auth/devstorage.read_write'] },
      verification: { method: 'GET', url: '{{config.base_url}}/storage/v1/b/{{config.bucket}}', headers: { Authorization: 'Bearer {{token.access_token}}' }, expect_status: [200] },
    });
    const result = await runVerification({ entry, method, egress, now, config: { base_url: vendor.base, bucket: 'bkt' }, credentials: { client_email: email, private_key: privateKey } });
    expect(result).toMatchObject({ outcome: 'active', httpStatus: 200, token: { access_token: ACCESS_TOKEN } });
  });

  it('a server that never answers → timed out', async () => {
    const vendor = await provider(() => undefined);
    const result = await verify({ ...catalog('rest-api', 'api_key_header'), config: { base_url: vendor.base }, credentials: { api_key: API_KEY }, timeoutMs: 250 });
    expect(result).toMatchObject({ outcome: 'error', httpStatus: null, reason: 'timed out after 250 ms' });
  });

  it('SSRF: without an allow list the loopback address is refused', async () => {
    const vendor = await provider((_req, _body, res) => json(res, 200, {}));
    const result = await verify({ ...catalog('rest-api', 'api_key_header'), egress: createNodeEgress(), config: { base_url: vendor.base }, credentials: { api_key: API_KEY } });
    expect(result).toMatchObject({ outcome: 'error', httpStatus: null });
    expect(result.reason).toMatch(/^refused: .*127\.0\.0\.1.*loopback address/);
    expect(vendor.hits).toEqual([]);
  });

  it('a method without verification is active, with the reason why', async () => {
    const result = await verify({ ...catalog('postgresql', 'basic'), config: {}, credentials: { username: 'u', password: PASSWORD } });
    expect(result).toMatchObject({ outcome: 'active', reason: NO_VERIFICATION_REASON, httpStatus: null });
  });

  describe('authorization_code (the caller refreshes; see the contract in verify-connection.ts)', () => {
    const github = catalog('github', 'oauth2');
    const config = (base: string) => ({ base_url: base });

    it('401 with a refresh token → error with httpStatus 401, for the caller to refresh and retry', async () => {
      const vendor = await provider((_req, _body, res) => json(res, 401, {}));
      const result = await verify({ ...github, config: config(vendor.base), credentials: { access_token: ACCESS_TOKEN, refresh_token: 'rt-1234', token_type: 'Bearer' } });
      expect(result).toMatchObject({ outcome: 'error', httpStatus: 401 });
    });

    it('401 without a refresh token → expired', async () => {
      const vendor = await provider((_req, _body, res) => json(res, 401, {}));
      const result = await verify({ ...github, config: config(vendor.base), credentials: { access_token: ACCESS_TOKEN, token_type: 'Bearer' } });
      expect(result).toMatchObject({ outcome: 'expired', httpStatus: 401 });
    });

    it('an expired token without a refresh token → expired, without a request', async () => {
      const vendor = await provider((_req, _body, res) => json(res, 200, {}));
      const credentials = { access_token: ACCESS_TOKEN, token_type: 'Bearer', expires_at: '2025-06-01T11:00:00Z' };
      const result = await verify({ ...github, config: config(vendor.base), credentials });
      expect(result).toMatchObject({ outcome: 'expired', httpStatus: null });
      expect(vendor.hits).toEqual([]);
    });
  });

  it('masks secrets a vendor echoes back', async () => {
    const vendor = await provider((req, _body, res) => json(res, 200, { ok: false, error: `token ${req.headers['x-key'] as string} revoked` }));
    const { entry, method } = custom({
      type: 'api_key',
      secret_fields: ['api_key'],
      verification: { method: 'GET', url: '{{config.base_url}}/x', headers: { 'X-Key': '{{credentials.api_key}}' }, expect_status: [200], expect_json: { pointer: '/ok', equals: true } },
    });
    const result = await verify({ entry, method, config: { base_url: vendor.base }, credentials: { api_key: API_KEY } });
    expect(result.reason).toContain('error "token [redacted] revoked"');
  });

  afterAll(() => {
    // Every reason any test above produced: none holds a secret that was used.
    expect(reasons.length).toBeGreaterThan(8);
    for (const reason of reasons) for (const secret of SECRETS) expect(reason).not.toContain(secret);
  });
});
