import { describe, expect, it } from '@jest/globals';
import type { Integration } from '@lore/client';
import { authorizationCodeMethods, connectRedirectUrl, scopesToAsk } from './oauth-connect';

const method = (id: string, oauth2?: Record<string, unknown>) => ({ id, type: oauth2 ? 'oauth2' : 'api_key', label: id, fields: {}, secret_fields: [], ...(oauth2 ? { oauth2 } : {}) });
const entry = {
  id: 'x',
  auth_methods: [
    method('token'),
    method('app', { grant_type: 'authorization_code', authorization_url: 'https://x/authorize', token_url: 'https://x/token', scopes: ['a'] }),
    method('machine', { grant_type: 'client_credentials', token_url: 'https://x/token', scopes: [] }),
    method('mcp', { grant_type: 'authorization_code', discovery_url: 'https://x/.well-known/oauth-authorization-server', scopes: [] }),
  ],
} as unknown as Integration;

describe('OAuth connect helpers', () => {
  it('offers only authorization code methods whose endpoints the catalog names (connect sessions refuse discovered ones)', () => {
    expect(authorizationCodeMethods(entry).map((m) => m.id)).toEqual(['app']);
  });

  it('asks for the ticked scopes and the typed ones, each once', () => {
    expect(scopesToAsk(['read_api', 'read_user'], ' read_user, write_repository  api ')).toEqual(['read_api', 'read_user', 'write_repository', 'api']);
    expect(scopesToAsk([], '')).toEqual([]);
  });

  it('sends the user back to the connections screen of the console they are on', () => {
    expect(connectRedirectUrl('https://lore.example', '/console/connections')).toBe('https://lore.example/console/connections/connect-result');
  });
});
