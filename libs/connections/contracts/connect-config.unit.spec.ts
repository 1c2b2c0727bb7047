import { connectionsConfig } from './connections.config';

describe('connect session configuration', () => {
  it('reads the public base URL without its trailing slash, the allowed redirect URLs and the OAuth apps with their registered config', () => {
    const config = connectionsConfig.parse({
      LORE_PUBLIC_BASE_URL: 'https://lore.example.com/base/',
      CONNECT_REDIRECT_URLS: 'https://app.example/connected, http://127.0.0.1:3000/oauth/',
      CONNECTION_OAUTH_CLIENTS: '{"gitlab": {"client_id": "id", "client_secret": "s", "config": {"base_url": "https://gitlab.internal"}}}',
    });
    expect(config.connect).toMatchObject({ publicBaseUrl: 'https://lore.example.com/base', redirectUrls: ['https://app.example/connected', 'http://127.0.0.1:3000/oauth/'], defaultTtlMs: 600_000 });
    expect(config.oauthClients['gitlab']?.config).toEqual({ base_url: 'https://gitlab.internal' });
    expect(connectionsConfig.parse({}).connect).toMatchObject({ publicBaseUrl: null, redirectUrls: [] });
  });

  it.each([
    ['LORE_PUBLIC_BASE_URL', 'lore.example.com'],
    ['LORE_PUBLIC_BASE_URL', 'https://lore.example.com/?x=1'],
    ['CONNECT_REDIRECT_URLS', 'https://app.example/ok,ftp://app.example/x'],
    ['CONNECT_REDIRECT_URLS', 'https://user:pw@app.example/x'],
    ['CONNECT_REDIRECT_URLS', 'https://app.example/x#frag'],
  ])('refuses %s=%s', (name, value) => {
    expect(connectionsConfig.safeParse({ [name]: value }).success).toBe(false);
  });
});
