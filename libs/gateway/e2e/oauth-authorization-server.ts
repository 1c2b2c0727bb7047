import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OAuth 2.0 authorization server on loopback, GitLab-shaped (the `gitlab` catalog entry
 * with `base_url` = this server): what connect sessions are tested against, speaking the wire
 * format of the RFCs exactly:
 * - authorization endpoint, RFC 6749 §4.1.1-§4.1.2 (https://www.rfc-editor.org/rfc/rfc6749#section-4.1),
 *   with its error redirects of §4.1.2.1 (`access_denied`, `server_error`, …, with `state`);
 * - token endpoint, §4.1.3 (authorization_code) and §6 (refresh_token, rotating), client
 *   authentication by client_secret_post (§2.3.1), answers of §5.1 and errors of §5.2;
 * - PKCE, RFC 7636 §4.6 (https://www.rfc-editor.org/rfc/rfc7636#section-4.6): S256 only; a code
 *   issued with a challenge is exchanged only with the verifier whose SHA-256 (base64url) matches;
 * - a bearer-protected user endpoint (`/api/v4/user`, GitLab's) for Lore's verification request.
 */
export interface OAuthAuthorizationServer {
  readonly url: string;
  readonly clientId: string;
  readonly clientSecret: string;
  /** What the next authorization request answers (then back to `approve`). */
  nextAuthorization: 'approve' | 'access_denied' | 'server_error';
  /** What the next code exchange answers (then back to `ok`). */
  nextExchange: 'ok' | 'invalid_grant' | 'server_error';
  /** `expires_in` of the access tokens issued. */
  accessTokenLifetimeS: number;
  /** The user endpoint answers 503 while false (a provider outage). */
  apiUp: boolean;
  /** Every authorization request's query, in order. */
  readonly authorizations: URLSearchParams[];
  /** Every token request's grant type and whether PKCE was verified, in order. */
  readonly tokenRequests: Array<{ grant: string; pkceVerified: boolean | null; error: string | null }>;
  /** Every secret the server issued or was sent (codes, tokens, verifiers, the client secret): none may ever appear in Lore's answers, events or logs. */
  secrets(): string[];
  /** Revokes every refresh and access token issued so far (the user removed the app). */
  revokeAll(): void;
  close(): Promise<void>;
}

interface Grant {
  readonly clientId: string;
  readonly redirectUri: string;
  readonly scope: string;
  readonly challenge: string | null;
  used: boolean;
}

const secret = (prefix: string): string => `${prefix}-${randomBytes(18).toString('base64url')}`;
const s256 = (verifier: string): string => createHash('sha256').update(verifier, 'ascii').digest('base64url');
const equal = (a: string, b: string): boolean => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export async function startOAuthAuthorizationServer(): Promise<OAuthAuthorizationServer> {
  const clientId = 'lore-e2e-client';
  const clientSecret = secret('client-secret');
  const codes = new Map<string, Grant>();
  const accessTokens = new Set<string>();
  const refreshTokens = new Set<string>();
  const seen: string[] = [clientSecret];
  const state = {
    nextAuthorization: 'approve' as OAuthAuthorizationServer['nextAuthorization'],
    nextExchange: 'ok' as OAuthAuthorizationServer['nextExchange'],
    accessTokenLifetimeS: 7200,
    apiUp: true,
  };
  const authorizations: URLSearchParams[] = [];
  const tokenRequests: OAuthAuthorizationServer['tokenRequests'] = [];

  const json = (response: ServerResponse, status: number, body: unknown): void => {
    // RFC 6749 §5.1: token answers are not cached.
    response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', pragma: 'no-cache' }).end(JSON.stringify(body));
  };
  const redirect = (response: ServerResponse, location: URL): void => {
    response.writeHead(302, { location: location.toString() }).end();
  };
  const issue = (response: ServerResponse, scope: string): void => {
    const access = secret('access');
    const refresh = secret('refresh');
    accessTokens.add(access);
    refreshTokens.add(refresh);
    seen.push(access, refresh);
    json(response, 200, { access_token: access, token_type: 'Bearer', expires_in: state.accessTokenLifetimeS, refresh_token: refresh, scope });
  };

  const authorize = (query: URLSearchParams, response: ServerResponse): void => {
    authorizations.push(query);
    const redirectUri = query.get('redirect_uri');
    // §4.1.2.1: with a missing or unknown client or redirect URI the user is NOT redirected.
    if (query.get('client_id') !== clientId || redirectUri === null) return json(response, 400, { error: 'invalid_request', error_description: 'unknown client or no redirect_uri' });
    const back = new URL(redirectUri);
    const stateParam = query.get('state');
    if (stateParam !== null) back.searchParams.set('state', stateParam);
    const fail = (error: string, description: string): void => {
      back.searchParams.set('error', error);
      back.searchParams.set('error_description', description);
      redirect(response, back);
    };
    if (query.get('response_type') !== 'code') return fail('unsupported_response_type', 'only code');
    const challenge = query.get('code_challenge');
    if (challenge !== null && query.get('code_challenge_method') !== 'S256') return fail('invalid_request', 'S256 only');
    const outcome = state.nextAuthorization;
    state.nextAuthorization = 'approve';
    if (outcome === 'access_denied') return fail('access_denied', 'The resource owner denied the request');
    if (outcome === 'server_error') return fail('server_error', 'The authorization server is having a bad day');
    const code = secret('code');
    seen.push(code);
    codes.set(code, { clientId, redirectUri, scope: query.get('scope') ?? '', challenge, used: false });
    back.searchParams.set('code', code);
    redirect(response, back);
  };

  const token = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const form = new URLSearchParams(await bodyOf(request));
    const grant = form.get('grant_type') ?? '';
    const refuse = (status: number, error: string, description: string, pkceVerified: boolean | null = null): void => {
      tokenRequests.push({ grant, pkceVerified, error });
      json(response, status, { error, error_description: description });
    };
    // §2.3.1 client_secret_post; §5.2: invalid_client answers 401.
    if (form.get('client_id') !== clientId || !equal(form.get('client_secret') ?? '', clientSecret)) return refuse(401, 'invalid_client', 'Client authentication failed');
    if (grant === 'authorization_code') {
      const code = form.get('code') ?? '';
      const verifier = form.get('code_verifier');
      if (verifier !== null) seen.push(verifier);
      const outcome = state.nextExchange;
      state.nextExchange = 'ok';
      if (outcome === 'server_error') return refuse(500, 'server_error', 'Try again later');
      const issued = codes.get(code);
      if (outcome === 'invalid_grant' || issued === undefined || issued.used) return refuse(400, 'invalid_grant', 'The provided authorization grant is invalid, expired, revoked or was issued to another client');
      issued.used = true;
      if (form.get('redirect_uri') !== issued.redirectUri) return refuse(400, 'invalid_grant', 'redirect_uri does not match the authorization request');
      let pkceVerified: boolean | null = null;
      if (issued.challenge !== null) {
        pkceVerified = verifier !== null && equal(s256(verifier), issued.challenge);
        if (!pkceVerified) return refuse(400, 'invalid_grant', 'PKCE verification failed', false);
      }
      tokenRequests.push({ grant, pkceVerified, error: null });
      return issue(response, issued.scope);
    }
    if (grant === 'refresh_token') {
      const refresh = form.get('refresh_token') ?? '';
      if (!refreshTokens.delete(refresh)) return refuse(400, 'invalid_grant', 'The refresh token is invalid or revoked');
      tokenRequests.push({ grant, pkceVerified: null, error: null });
      return issue(response, '');
    }
    refuse(400, 'unsupported_grant_type', `grant_type ${grant} is not supported`);
  };

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      if (url.pathname === '/oauth/authorize' && request.method === 'GET') return authorize(url.searchParams, response);
      if (url.pathname === '/oauth/token' && request.method === 'POST') return token(request, response);
      if (url.pathname === '/api/v4/user') {
        if (!state.apiUp) return json(response, 503, { message: 'Service Unavailable' });
        const bearer = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
        return bearer !== undefined && accessTokens.has(bearer) ? json(response, 200, { id: 1, username: 'e2e' }) : json(response, 401, { message: '401 Unauthorized' });
      }
      json(response, 404, { error: 'not found' });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    clientId,
    clientSecret,
    authorizations,
    tokenRequests,
    secrets: () => [...seen],
    revokeAll: () => {
      accessTokens.clear();
      refreshTokens.clear();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}

/** The deployment a connect-session suite expects: Lore's public URL, the OAuth app for `gitlab` at this server, the allowed redirect URL, a fast health check. */
export function connectTestEnv(server: OAuthAuthorizationServer, publicBaseUrl: string): Record<string, string> {
  return {
    LORE_PUBLIC_BASE_URL: publicBaseUrl,
    CONNECTION_OAUTH_CLIENTS: JSON.stringify({ gitlab: { client_id: server.clientId, client_secret: server.clientSecret, config: { base_url: server.url } } }),
    CONNECT_REDIRECT_URLS: `${CONNECT_TEST_APP}/connected,${CONNECT_TEST_APP}/apps/`,
    CONNECTION_HEALTH_INTERVAL_MS: '300',
    CONNECTION_REFRESH_AHEAD_MS: '300000',
  };
}

/** The application the user is sent back to (never visited: its URL is only read). */
export const CONNECT_TEST_APP = 'https://app.example';
