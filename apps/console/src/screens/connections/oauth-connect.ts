import type { Integration } from '@lore/client';

export type AuthMethod = Integration['auth_methods'][number];

/**
 * The entry's methods a connect session can run: OAuth 2.0 authorization code with its endpoints
 * in the catalog. Methods that discover their endpoints (remote MCP servers) are refused by the
 * API (README, "Connect sessions (OAuth)"), so the console does not offer them.
 */
export function authorizationCodeMethods(entry: Integration): AuthMethod[] {
  return entry.auth_methods.filter((method) => method.oauth2?.grant_type === 'authorization_code' && method.oauth2.discovery_url === undefined);
}

/** Where the provider's answer lands: the console's connect-result page (an allowed `CONNECT_REDIRECT_URLS` entry). */
export const CONNECT_RESULT_PATH = '/connect-result';

/** The absolute redirect URL for the console served at `origin` with the connections screen under `screenBase` (`/console/connections`). */
export function connectRedirectUrl(origin: string, screenBase: string): string {
  return `${origin}${screenBase}${CONNECT_RESULT_PATH}`;
}

/** The scopes to ask for: the ticked catalog scopes, then any typed ones (space or comma separated), each once. */
export function scopesToAsk(ticked: readonly string[], typed: string): string[] {
  return [...new Set([...ticked, ...typed.split(/[\s,]+/).filter((scope) => scope !== '')])];
}

/** A session is still moving while it is in one of these (worth polling). */
export const UNFINISHED = new Set(['pending', 'authorizing', 'exchanging']);
