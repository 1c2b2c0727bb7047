/**
 * Building the verification request of real catalog methods: placeholders, header-name
 * placeholders, Basic credentials, JSON bodies, and errors that name the field, never its value.
 */
import type { IntegrationRecord } from '@lore/connections/contracts';
import { CATALOG } from '../catalog/catalog-entries';
import { maskSecrets, withDefaults } from './templates';
import { buildVerificationRequest } from './verification-request';

type AuthMethod = IntegrationRecord['auth_methods'][number];

function method(entryId: string, methodId: string): AuthMethod {
  const found = CATALOG.find((e) => e.id === entryId)?.auth_methods.find((m) => m.id === methodId);
  if (!found) throw new Error(`no method ${entryId}/${methodId}`);
  return found;
}

const SECRET = 'sk-live-7Gq2-DO-NOT-LEAK-b81f';

describe('buildVerificationRequest', () => {
  it('fills the URL and a header whose name comes from the config (rest-api api_key_header)', () => {
    const request = buildVerificationRequest(
      method('rest-api', 'api_key_header'),
      { base_url: 'https://api.example.com/v1', health_path: '/health', api_key_header: 'X-Tenant-Key' },
      { api_key: SECRET },
    );
    expect(request).toEqual({ method: 'GET', url: 'https://api.example.com/v1/health', headers: { 'X-Tenant-Key': SECRET } });
  });

  it('builds HTTP Basic from the two templates (rest-api basic, zendesk)', () => {
    const rest = buildVerificationRequest(
      method('rest-api', 'basic'),
      { base_url: 'https://api.example.com', health_path: '/' },
      { username: 'ada', password: 'pässword:1' },
    );
    expect(rest).toMatchObject({ headers: { Authorization: `Basic ${Buffer.from('ada:pässword:1').toString('base64')}` } });
    const zendesk = buildVerificationRequest(method('zendesk', 'api_token'), { subdomain: 'acme' }, { email: 'a@b.co', api_token: SECRET });
    expect(zendesk).toMatchObject({
      url: 'https://acme.zendesk.com/api/v2/users/me.json',
      headers: { Authorization: `Basic ${Buffer.from(`a@b.co/token:${SECRET}`).toString('base64')}` },
    });
  });

  it('names a missing placeholder value', () => {
    expect(buildVerificationRequest(method('rest-api', 'bearer'), { health_path: '/' }, { token: SECRET })).toEqual({
      error: 'config.base_url is not set',
    });
    expect(buildVerificationRequest(method('posthog', 'personal_api_key'), { base_url: 'https://eu.posthog.com' }, {})).toEqual({
      error: 'credentials.api_key is not set',
    });
  });

  it('fills {{token.access_token}} only from an obtained token', () => {
    const salesforce = method('salesforce', 'client_credentials');
    const config = { instance_url: 'https://acme.my.salesforce.com', api_version: 'v62.0' };
    const credentials = { client_id: 'id', client_secret: SECRET };
    expect(buildVerificationRequest(salesforce, config, credentials)).toEqual({ error: 'token.access_token is not set' });
    expect(buildVerificationRequest(salesforce, config, credentials, { access_token: 'tok-123' })).toEqual({
      method: 'GET',
      url: 'https://acme.my.salesforce.com/services/data/v62.0/limits',
      headers: { Authorization: 'Bearer tok-123' },
    });
  });

  it('refuses a line break in a header value, naming the field and not the value', () => {
    const result = buildVerificationRequest(method('openai', 'api_key'), {}, { api_key: `${SECRET}\r\nX-Injected: 1` });
    expect(result).toEqual({ error: 'credentials.api_key contains a line break, which a header value cannot hold' });
  });

  it('refuses a header name placeholder that is not a token', () => {
    const result = buildVerificationRequest(
      method('rest-api', 'api_key_header'),
      { base_url: 'https://api.example.com', health_path: '/', api_key_header: 'X Key:' },
      { api_key: SECRET },
    );
    expect(result).toEqual({ error: 'config.api_key_header is not a valid header name' });
  });

  it('escapes values filled into a JSON body', () => {
    const result = buildVerificationRequest(method('milvus', 'token'), { base_url: 'http://milvus:19530', db_name: 'a"b\\c' }, { token: SECRET });
    if ('error' in result) throw new Error(result.error);
    expect(JSON.parse(result.body ?? '')).toEqual({ dbName: 'a"b\\c' });
  });

  it('does not quote a URL that does not parse (it may hold a credential)', () => {
    // Credentials may sit in the URL as the catalog says (Telegram's path); the URL is normalised, not rejected.
    expect(buildVerificationRequest(method('telegram', 'bot_token'), {}, { bot_token: `12:${SECRET} x` })).toMatchObject({
      url: `https://api.telegram.org/bot12:${SECRET}%20x/getMe`,
    });
    const broken = buildVerificationRequest(method('posthog', 'personal_api_key'), { base_url: SECRET }, { api_key: SECRET });
    expect(broken).toEqual({ error: 'the verification URL is not a valid URL (check config.base_url or the like)' });
  });

  it('answers an error for a method without verification', () => {
    expect(buildVerificationRequest(method('postgresql', 'basic'), {}, { username: 'u', password: SECRET })).toEqual({
      error: 'auth method basic has no verification request',
    });
  });
});

describe('withDefaults and maskSecrets', () => {
  it('applies schema defaults under the given values', () => {
    const restApi = CATALOG.find((e) => e.id === 'rest-api') as IntegrationRecord;
    expect(withDefaults(restApi.config_schema, { base_url: 'https://x.example', timeout_ms: null })).toMatchObject({
      base_url: 'https://x.example',
      health_path: '/',
      api_key_header: 'X-API-Key',
      timeout_ms: 30000,
    });
  });

  it('masks a secret in its plain, URL-encoded and base64 forms', () => {
    const secret = 'p@ss word/+=';
    const text = `a ${secret} b ${encodeURIComponent(secret)} c ${Buffer.from(secret).toString('base64')} d ${new URLSearchParams({ x: secret }).toString()}`;
    const masked = maskSecrets(text, [secret, 'abc']);
    expect(masked).toBe('a [redacted] b [redacted] c [redacted] d x=[redacted]');
  });
});
