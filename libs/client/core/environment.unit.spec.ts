import { LoreClient } from '../lore-client';
import { optionsFromEnvironment } from './environment';

describe('a client configured from the environment (the names the Python SDK reads)', () => {
  it('reads LORE_API_KEY, LORE_BASE_URL and LORE_WORKSPACE_ID', () => {
    expect(optionsFromEnvironment({ LORE_API_KEY: 'lore_k', LORE_BASE_URL: 'https://lore.example:9000', LORE_WORKSPACE_ID: 'acme' })).toEqual({
      token: 'lore_k',
      baseUrl: 'https://lore.example:9000',
      workspaceId: 'acme',
    });
  });

  it('defaults the base URL to a local Lore and leaves the workspace out; blank counts as unset', () => {
    expect(optionsFromEnvironment({ LORE_API_KEY: ' lore_k ', LORE_BASE_URL: '  ', LORE_WORKSPACE_ID: '' })).toEqual({ token: 'lore_k', baseUrl: 'http://localhost:8080' });
  });

  it('refuses to make a client without a key, naming the variable', () => {
    expect(() => optionsFromEnvironment({ LORE_BASE_URL: 'http://localhost:8080' })).toThrow(/LORE_API_KEY/);
    expect(() => LoreClient.fromEnvironment({ LORE_API_KEY: '   ' })).toThrow(/LORE_API_KEY/);
  });

  it('sends what it read: the key as a bearer token and the workspace header, to the base URL', async () => {
    const seen: Request[] = [];
    const fetch = (request: Request): Promise<Response> => {
      seen.push(request);
      return Promise.resolve(new Response(JSON.stringify({ data: [], next_cursor: null }), { headers: { 'content-type': 'application/json' } }));
    };
    const lore = LoreClient.fromEnvironment({ LORE_API_KEY: 'lore_k', LORE_BASE_URL: 'http://127.0.0.1:9/', LORE_WORKSPACE_ID: 'acme' }, { fetch });
    await lore.collections.list();
    const [request] = seen;
    expect(request?.url).toMatch(/^http:\/\/127\.0\.0\.1:9\/api\/v1\/collections/);
    expect(request?.headers.get('authorization')).toBe('Bearer lore_k');
    expect(request?.headers.get('x-workspace-id')).toBe('acme');
  });

  it('takes a token passed in over the environment, which then needs no key', () => {
    expect(() => LoreClient.fromEnvironment({}, { token: 'lore_passed' })).not.toThrow();
  });
});
