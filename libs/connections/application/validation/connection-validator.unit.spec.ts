/**
 * The connection validator (SPEC §4.5, §7) against real catalog entries: every failed check is
 * reported at once, each naming its field, and no submitted secret ever appears in a message.
 */
import type { IntegrationRecord } from '@lore/connections/contracts';
import { CATALOG } from '../catalog/catalog-entries';
import type { ConnectionValidationRequest, TokenResponse } from './connection-validator';
import { validateConnection } from './connection-validator';

const NOW = new Date('2025-06-01T12:00:00Z');

function entry(id: string): IntegrationRecord {
  const found = CATALOG.find((e) => e.id === id);
  if (!found) throw new Error(`no catalog entry ${id}`);
  return found;
}

/** An unsigned JWT whose payload is `claims`. */
function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

const OPENAI_KEY = 'sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX1234';
const SECRET = 'SUPERSECRET-zq93-do-not-leak-7f1e';

describe('validateConnection', () => {
  const deps = { now: NOW };

  describe('the catalog entries the tests rely on', () => {
    it('exist with the methods used below', () => {
      expect(entry('openai').default_auth_method_id).toBe('api_key');
      expect(entry('postgresql').default_auth_method_id).toBe('basic');
      expect(entry('slack').auth_methods.find((m) => m.id === 'oauth2')?.oauth2?.grant_type).toBe('authorization_code');
      expect(entry('box').auth_methods.find((m) => m.id === 'client_credentials')?.oauth2?.grant_type).toBe('client_credentials');
      expect(entry('azure-openai').auth_methods.find((m) => m.id === 'client_credentials')?.oauth2?.token_url).toContain('{{config.tenant_id}}');
    });
  });

  describe('valid requests', () => {
    it('accepts a valid OpenAI request and answers the default method', async () => {
      const result = await validateConnection(
        entry('openai'),
        { integration_type: 'model', config: { base_url: 'https://api.openai.com/v1' }, credentials: { api_key: OPENAI_KEY } },
        deps,
      );
      expect(result).toEqual({ authMethodId: 'api_key', errors: [] });
    });

    it('accepts a valid PostgreSQL request, defaults filling the optional parts', async () => {
      const request = { config: { host: 'db.example.com', database: 'lore' }, credentials: { username: 'lore', password: SECRET } };
      const result = await validateConnection(entry('postgresql'), request, deps);
      expect(result).toEqual({ authMethodId: 'basic', errors: [] });
      // The defaults were applied to a copy, not to the caller's request.
      expect(request.config).toEqual({ host: 'db.example.com', database: 'lore' });
    });

    it('accepts a Slack bot token when that method is chosen', async () => {
      const result = await validateConnection(
        entry('slack'),
        { auth_method_id: 'bot_token', config: { team_id: 'T01234567' }, credentials: { bot_token: 'xoxb-1234-5678-abcDEF' } },
        deps,
      );
      expect(result).toEqual({ authMethodId: 'bot_token', errors: [] });
    });

    it('treats a null auth_method_id as the default', async () => {
      const result = await validateConnection(entry('openai'), { auth_method_id: null, credentials: { api_key: OPENAI_KEY } }, deps);
      expect(result).toEqual({ authMethodId: 'api_key', errors: [] });
    });
  });

  describe('every failure at once', () => {
    it('lists four different problems of one body, each naming its field', async () => {
      const { errors } = await validateConnection(
        entry('postgresql'),
        {
          config: { host: 'not a host!', port: 70000, ssl_mode: 'sometimes' },
          credentials: { username: 'lore' },
        },
        deps,
      );
      expect(errors).toEqual(
        expect.arrayContaining([
          'config.host: must be a valid hostname (format hostname)',
          'config.port: must be <= 65535',
          'config.database: is required',
          'credentials.password: is required',
        ]),
      );
      expect(errors).toContainEqual(expect.stringMatching(/^config\.ssl_mode: must be one of "disable", /));
      expect(errors).toHaveLength(5);
    });

    it('reports formats, patterns, unknown fields and the integration type together', async () => {
      const { errors } = await validateConnection(
        entry('openai'),
        {
          integration_type: 'connectors',
          config: { base_url: 'not a url', organization_id: 'acme', region: 'eu' },
          credentials: { api_key: 'pk-wrong' },
        },
        deps,
      );
      expect(errors).toEqual([
        'integration_type: must be "model" for integration openai',
        'config.region: is not allowed',
        'config.base_url: must match pattern "^https?://"',
        'config.base_url: must be a valid URL (format uri)',
        'config.organization_id: must match pattern "^org-[A-Za-z0-9]{16,32}$"',
        'credentials.api_key: must match pattern "^sk-(proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}$"',
      ]);
    });

    it('reports one "is required" per required field when credentials are missing', async () => {
      const { errors } = await validateConnection(entry('postgresql'), { config: { host: 'db', port: 5432, database: 'x' } }, deps);
      expect(errors).toEqual(['credentials.username: is required', 'credentials.password: is required']);
    });

    it('reports lengths and types', async () => {
      const { errors } = await validateConnection(
        entry('postgresql'),
        { config: { host: 'db', port: '5432', database: 'd'.repeat(64) }, credentials: { username: '', password: 'x' } },
        deps,
      );
      expect(errors).toEqual([
        'config.port: must be an integer',
        'config.database: must be at most 63 characters',
        'credentials.username: must be at least 1 character',
      ]);
    });

    it("checks the method's required_config as well as the config schema", async () => {
      const request = { auth_method_id: 'client_credentials', config: { endpoint: 'https://acme.openai.azure.com' }, credentials: { client_id: 'c', client_secret: SECRET } };
      const { errors } = await validateConnection(entry('azure-openai'), request, deps);
      expect(errors).toEqual(['config.tenant_id: is required']);
      const { errors: withApiKey } = await validateConnection(entry('azure-openai'), { ...request, auth_method_id: 'api_key', credentials: { api_key: 'k'.repeat(32) } }, deps);
      expect(withApiKey).toEqual([]);
    });
  });

  describe('integration type and method', () => {
    it('rejects a wrong integration_type', async () => {
      const { errors } = await validateConnection(entry('openai'), { integration_type: 'storage', credentials: { api_key: OPENAI_KEY } }, deps);
      expect(errors).toEqual(['integration_type: must be "model" for integration openai']);
    });

    it('rejects an unknown auth_method_id, listing the valid ones, and still checks the config', async () => {
      const result = await validateConnection(entry('slack'), { auth_method_id: 'password', config: { team_id: 'nope' }, credentials: { x: 1 } }, deps);
      expect(result.authMethodId).toBe('password');
      expect(result.errors).toEqual([
        'auth_method_id: unknown method "password" for integration slack (valid: "oauth2", "bot_token")',
        'config.team_id: must match pattern "^T[A-Z0-9]{8,12}$"',
      ]);
    });
  });

  describe('credentials', () => {
    it('rejects credentials sent along with credential_provided', async () => {
      const { errors } = await validateConnection(entry('openai'), { credential_provided: true, credentials: { api_key: OPENAI_KEY } }, deps);
      expect(errors).toEqual(['credentials: must be absent when an existing credential is reused (credential_provided)']);
    });

    it('accepts credential_provided without credentials (the stored credential is not re-checked)', async () => {
      const requests: ConnectionValidationRequest[] = [{ credential_provided: true }, { credential_provided: true, credentials: null }, { credential_provided: true, credentials: {} }];
      for (const request of requests) {
        const { errors } = await validateConnection(entry('openai'), request, deps);
        expect(errors).toEqual([]);
      }
    });

    it('rejects credentials for a method that takes none', async () => {
      const ollama = entry('ollama');
      expect(ollama.default_auth_method_id).toBe('none');
      const ok = await validateConnection(ollama, { config: { base_url: 'http://localhost:11434' } }, deps);
      expect(ok.errors).toEqual([]);
      const { errors } = await validateConnection(ollama, { config: { base_url: 'http://localhost:11434' }, credentials: { api_key: SECRET } }, deps);
      expect(errors).toEqual(['credentials: must be empty for auth method "none", which takes none (got api_key)']);
    });
  });

  describe('OAuth 2.0 authorization_code tokens', () => {
    const slack = () => entry('slack');
    const expired = jwt({ sub: 'U1', exp: seconds('2025-05-01T00:00:00Z') });

    it('rejects an expired JWT access token without a refresh token', async () => {
      const { errors } = await validateConnection(slack(), { credentials: { access_token: expired } }, deps);
      expect(errors).toEqual(['credentials.access_token: has expired (exp 2025-05-01T00:00:00.000Z) and no refresh_token is given']);
    });

    it('accepts an expired JWT access token with a refresh token', async () => {
      const { errors } = await validateConnection(slack(), { credentials: { access_token: expired, refresh_token: 'r-token' } }, deps);
      expect(errors).toEqual([]);
    });

    it('accepts a JWT that is still valid, and an opaque token', async () => {
      const valid = jwt({ exp: seconds('2025-07-01T00:00:00Z') });
      for (const accessToken of [valid, 'xoxe.xoxp-1-opaque']) {
        const { errors } = await validateConnection(slack(), { credentials: { access_token: accessToken } }, deps);
        expect(errors).toEqual([]);
      }
    });

    it('rejects an expires_at in the past without a refresh token', async () => {
      const past = { access_token: 'opaque', expires_at: '2025-05-31T00:00:00Z' };
      expect((await validateConnection(slack(), { credentials: past }, deps)).errors).toEqual([
        'credentials.expires_at: is in the past (2025-05-31T00:00:00.000Z) and no refresh_token is given',
      ]);
      expect((await validateConnection(slack(), { credentials: { ...past, refresh_token: 'r' } }, deps)).errors).toEqual([]);
    });

    it('checks the expires_at format', async () => {
      const { errors } = await validateConnection(slack(), { credentials: { access_token: 'opaque', expires_at: 'tomorrow' } }, deps);
      expect(errors).toEqual(['credentials.expires_at: must be a valid date-time (RFC 3339) (format date-time)']);
    });
  });

  describe('OAuth 2.0 client_credentials', () => {
    const box = () => entry('box');
    const request = { auth_method_id: 'client_credentials', credentials: { client_id: 'box-client', client_secret: SECRET } };

    it('asks the token endpoint once and accepts an issued token', async () => {
      const requestToken = jest.fn(async (): Promise<TokenResponse> => ({ ok: true, status: 200 }));
      const { errors } = await validateConnection(box(), request, { now: NOW, requestToken });
      expect(errors).toEqual([]);
      expect(requestToken).toHaveBeenCalledTimes(1);
      expect(requestToken).toHaveBeenCalledWith('https://api.box.com/oauth2/token', {
        grant_type: 'client_credentials',
        client_id: 'box-client',
        client_secret: SECRET,
      });
    });

    it('reports refused client credentials', async () => {
      const requestToken = jest.fn(async (): Promise<TokenResponse> => ({ ok: false, status: 401, error: 'invalid_client' }));
      const { errors } = await validateConnection(box(), request, { now: NOW, requestToken });
      expect(errors).toEqual(['credentials: the token endpoint refused the client credentials (HTTP 401: invalid_client)']);
    });

    it('reports an unreachable token endpoint, without echoing a secret the error carries', async () => {
      const requestToken = jest.fn(async (): Promise<TokenResponse> => {
        throw new Error(`connect ECONNREFUSED (client_secret=${SECRET})`);
      });
      const { errors } = await validateConnection(box(), request, { now: NOW, requestToken });
      expect(errors).toEqual(['credentials: the token endpoint could not be reached (connect ECONNREFUSED (client_secret=[redacted]))']);
    });

    it('does not ask the token endpoint when the field checks fail', async () => {
      const requestToken = jest.fn(async (): Promise<TokenResponse> => ({ ok: true, status: 200 }));
      const { errors } = await validateConnection(box(), { auth_method_id: 'client_credentials', credentials: { client_id: 'box-client' } }, { now: NOW, requestToken });
      expect(errors).toEqual(['credentials.client_secret: is required']);
      expect(requestToken).not.toHaveBeenCalled();
    });

    it('fills the token URL from the config and sends the scopes', async () => {
      const requestToken = jest.fn(async (): Promise<TokenResponse> => ({ ok: true, status: 200 }));
      const tenant = '0b6f1f2e-4a8b-4c1d-9e3f-123456789abc';
      const { errors } = await validateConnection(
        entry('azure-openai'),
        {
          auth_method_id: 'client_credentials',
          config: { endpoint: 'https://acme.openai.azure.com', tenant_id: tenant },
          credentials: { client_id: 'app', client_secret: SECRET },
        },
        { now: NOW, requestToken },
      );
      expect(errors).toEqual([]);
      expect(requestToken).toHaveBeenCalledWith(`https://login.microsoftonline.com/${tenant}/oauth2/v2.0/token`, {
        grant_type: 'client_credentials',
        client_id: 'app',
        client_secret: SECRET,
        scope: 'https://cognitiveservices.azure.com/.default',
      });
    });
  });

  describe('secrets', () => {
    it('never puts a submitted secret value in a message', async () => {
      const planted = [
        // Pattern failures on secret fields.
        validateConnection(entry('openai'), { credentials: { api_key: SECRET } }, deps),
        validateConnection(entry('slack'), { auth_method_id: 'bot_token', credentials: { bot_token: SECRET } }, deps),
        // Too long, unknown field, wrong type, reused credential, method without credentials.
        validateConnection(entry('postgresql'), { config: { host: SECRET }, credentials: { username: 'u', password: SECRET.repeat(200), extra: SECRET } }, deps),
        validateConnection(entry('openai'), { config: { base_url: SECRET }, credentials: { api_key: 42, token: SECRET } }, deps),
        validateConnection(entry('openai'), { credential_provided: true, credentials: { api_key: SECRET } }, deps),
        validateConnection(entry('chroma'), { config: { base_url: 'http://localhost:8000' }, credentials: { token: SECRET } }, deps),
        // Expired token, refused client credentials.
        validateConnection(entry('slack'), { credentials: { access_token: jwt({ exp: 1, secret: SECRET }) } }, deps),
        validateConnection(entry('box'), { auth_method_id: 'client_credentials', credentials: { client_id: 'c', client_secret: SECRET } }, {
          now: NOW,
          requestToken: async () => ({ ok: false, status: 400, error: `invalid_client ${SECRET}` }),
        }),
      ];
      const results = await Promise.all(planted);
      for (const result of results) expect(result.errors.length).toBeGreaterThan(0);
      const joined = results.flatMap((r) => r.errors).join('\n');
      expect(joined).not.toContain(SECRET);
      expect(joined).not.toContain('SUPERSECRET');
    });
  });
});
