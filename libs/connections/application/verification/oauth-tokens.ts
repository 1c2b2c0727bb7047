/**
 * The OAuth 2.0 grants Lore runs itself, through the egress port: client_credentials (RFC 6749
 * §4.4), the JWT bearer assertion of service accounts (RFC 7523, as Google uses it) and the
 * refresh of an authorization_code token (RFC 6749 §6), and the code exchange of the connect
 * flow (RFC 6749 §4.1.3 with RFC 7636 PKCE).
 *
 * Every outcome is a value, never a throw (see TokenOutcome). No error carries a secret that was
 * sent; token-endpoint.ts masks them.
 */
import { importPKCS8, SignJWT } from 'jose';
import { z } from 'zod';
import type { Egress } from '@lore/platform/egress/port';
import type { TokenResponse } from '../validation/connection-validator';
import type { TokenAnswerShape, TokenOutcome } from './token-endpoint';
import { DEFAULT_TIMEOUT_MS } from './egress-failure';
import { callTokenEndpoint, parseTokenBody, PUBLIC_FORM_FIELDS, tokenFailure } from './token-endpoint';
import type { AuthMethod } from '@lore/connections/contracts';
import type { JsonObject } from './templates';
import { fillTemplate, maskSecrets, secretValues } from './templates';

export type { OAuthToken, TokenAnswerShape, TokenOutcome } from './token-endpoint';

export interface TokenOptions {
  /** Whole-exchange deadline for the token request (default 10 s). */
  readonly timeoutMs?: number;
  /**
   * The OAuth client, when the credentials do not hold it: an authorization_code credential holds
   * the user's tokens, while the client id and secret are Lore's registered app (deployment config).
   */
  readonly client?: { readonly client_id: string; readonly client_secret?: string | undefined };
}

/** The parts of `$defs/oauth2` the contracts' record leaves loose. */
const OAuth2Spec = z.object({
  grant_type: z.enum(['authorization_code', 'client_credentials', 'jwt_bearer']),
  token_url: z.string().optional(),
  refresh_url: z.string().optional(),
  scopes: z.array(z.string()),
  scope_separator: z.enum([' ', ',']).optional(),
  token_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'none']).optional(),
});
type OAuth2Spec = z.infer<typeof OAuth2Spec>;

const JWT_BEARER = 'urn:ietf:params:oauth:grant-type:jwt-bearer';
/** Google's limit, and the usual one: an assertion lives one hour at most. */
const ASSERTION_LIFETIME_S = 3600;

const str = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** The method's oauth2 block and its token URL with `{{config.x}}` filled, or why not. */
function endpoint(method: AuthMethod, config: JsonObject, which: 'token' | 'refresh'): { spec: OAuth2Spec; url: string } | { error: string } {
  const parsed = OAuth2Spec.safeParse(method.oauth2);
  if (!parsed.success) return { error: `auth method ${method.id} is not an OAuth 2.0 method` };
  const template = which === 'refresh' ? (parsed.data.refresh_url ?? parsed.data.token_url) : parsed.data.token_url;
  if (!template) return { error: `auth method ${method.id} has no token URL (its endpoints are discovered)` };
  const filled = fillTemplate(template, { config, credentials: {} }, 'url');
  if ('error' in filled) return filled;
  try {
    const url = new URL(filled.text);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') return { error: 'the token URL must be http or https' };
    return { spec: parsed.data, url: url.toString() };
  } catch {
    return { error: 'the token URL is not a valid URL (check the configuration it is built from)' };
  }
}

const scopeOf = (spec: OAuth2Spec): string | undefined => (spec.scopes.length ? spec.scopes.join(spec.scope_separator ?? ' ') : undefined);

/** Client authentication per `token_auth_method` (default client_secret_post, as most providers accept it). */
function clientAuth(spec: OAuth2Spec, clientId: string | undefined, clientSecret: string | undefined) {
  if (!clientId) return { form: {}, basic: undefined };
  if (spec.token_auth_method === 'client_secret_basic' && clientSecret) return { form: {}, basic: { clientId, clientSecret } };
  if (spec.token_auth_method === 'none' || !clientSecret) return { form: { client_id: clientId }, basic: undefined };
  return { form: { client_id: clientId, client_secret: clientSecret }, basic: undefined };
}

export async function clientCredentialsToken(
  method: AuthMethod,
  config: JsonObject,
  credentials: JsonObject,
  egress: Egress,
  now: Date = new Date(),
  options: TokenOptions = {},
): Promise<TokenOutcome> {
  const target = endpoint(method, config, 'token');
  if ('error' in target) return tokenFailure(target.error);
  const clientId = str(credentials['client_id']);
  const clientSecret = str(credentials['client_secret']);
  if (!clientId) return tokenFailure('credentials.client_id is not set');
  if (!clientSecret) return tokenFailure('credentials.client_secret is not set');
  const auth = clientAuth(target.spec, clientId, clientSecret);
  const scope = scopeOf(target.spec);
  return callTokenEndpoint(egress, {
    url: target.url,
    form: { grant_type: 'client_credentials', ...(scope ? { scope } : {}), ...auth.form },
    basic: auth.basic,
    secrets: secretValues(method, credentials, clientSecret),
    now,
    timeoutMs: options.timeoutMs,
  });
}

/** A key pasted out of a JSON key file may still have its line breaks escaped (`\n`). */
const pem = (key: string): string => key.replace(/\\n/g, '\n').trim();

/**
 * Service-account JWT bearer grant (Google): an RS256 assertion signed with the account's private
 * key, iss = client_email, aud = the token URL, scope = the method's scopes, valid one hour.
 */
export async function jwtBearerToken(
  method: AuthMethod,
  config: JsonObject,
  credentials: JsonObject,
  egress: Egress,
  now: Date,
  options: TokenOptions = {},
): Promise<TokenOutcome> {
  const target = endpoint(method, config, 'token');
  if ('error' in target) return tokenFailure(target.error);
  const clientEmail = str(credentials['client_email']);
  const privateKey = str(credentials['private_key']);
  const keyId = str(credentials['private_key_id']);
  if (!clientEmail) return tokenFailure('credentials.client_email is not set');
  if (!privateKey) return tokenFailure('credentials.private_key is not set');

  let key: Awaited<ReturnType<typeof importPKCS8>>;
  try {
    key = await importPKCS8(pem(privateKey), 'RS256');
  } catch {
    // jose's message is not quoted: it could describe the key material.
    return tokenFailure('credentials.private_key is not a valid PKCS#8 RSA private key (PEM)');
  }
  const issuedAt = Math.floor(now.getTime() / 1000);
  const scope = scopeOf(target.spec);
  const assertion = await new SignJWT(scope ? { scope } : {})
    .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(keyId ? { kid: keyId } : {}) })
    .setIssuer(clientEmail)
    .setAudience(target.url)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ASSERTION_LIFETIME_S)
    .sign(key);
  return callTokenEndpoint(egress, {
    url: target.url,
    form: { grant_type: JWT_BEARER, assertion },
    secrets: secretValues(method, credentials, privateKey, assertion),
    now,
    timeoutMs: options.timeoutMs,
  });
}

/**
 * Refreshes an authorization_code token. On success `token.refresh_token` is the rotated one when
 * the provider rotated it (store it: the old one may now be dead), absent when it did not.
 * `invalidGrant` means the refresh token was refused for good: the user must reconnect.
 */
export async function refreshAccessToken(
  method: AuthMethod,
  config: JsonObject,
  credentials: JsonObject,
  egress: Egress,
  now: Date,
  options: TokenOptions = {},
): Promise<TokenOutcome> {
  const target = endpoint(method, config, 'refresh');
  if ('error' in target) return tokenFailure(target.error);
  const refreshToken = str(credentials['refresh_token']);
  if (!refreshToken) return tokenFailure('credentials.refresh_token is not set');
  const clientId = str(credentials['client_id']) ?? options.client?.client_id;
  const clientSecret = str(credentials['client_secret']) ?? str(options.client?.client_secret);
  const auth = clientAuth(target.spec, clientId, clientSecret);
  return callTokenEndpoint(egress, {
    url: target.url,
    form: { grant_type: 'refresh_token', refresh_token: refreshToken, ...auth.form },
    basic: auth.basic,
    secrets: secretValues(method, credentials, refreshToken, clientSecret),
    now,
    timeoutMs: options.timeoutMs,
  });
}

/**
 * The authorization code grant's exchange (RFC 6749 §4.1.3), with the PKCE verifier
 * (RFC 7636 §4.5) when the flow sent a challenge. The answer is read where the catalog's
 * `token_response` says (Slack's user token is at `/authed_user/access_token`).
 */
export async function exchangeAuthorizationCode(
  method: AuthMethod,
  config: JsonObject,
  grant: { readonly code: string; readonly redirectUri: string; readonly codeVerifier: string | null },
  egress: Egress,
  now: Date,
  options: TokenOptions & { readonly shape?: TokenAnswerShape } = {},
): Promise<TokenOutcome> {
  const target = endpoint(method, config, 'token');
  if ('error' in target) return tokenFailure(target.error);
  const clientId = options.client?.client_id;
  const clientSecret = str(options.client?.client_secret);
  const auth = clientAuth(target.spec, clientId, clientSecret);
  return callTokenEndpoint(egress, {
    url: target.url,
    form: {
      grant_type: 'authorization_code',
      code: grant.code,
      redirect_uri: grant.redirectUri,
      ...(grant.codeVerifier === null ? {} : { code_verifier: grant.codeVerifier }),
      ...auth.form,
    },
    basic: auth.basic,
    secrets: [grant.code, ...(grant.codeVerifier === null ? [] : [grant.codeVerifier]), ...(clientSecret === undefined ? [] : [clientSecret])],
    now,
    timeoutMs: options.timeoutMs,
    shape: options.shape,
  });
}

/**
 * The connection validator's `requestToken` (its client_credentials probe) over the egress. As
 * that signature asks, an endpoint that cannot be reached throws (the egress's refusal, whose
 * message names the host only); any HTTP answer resolves.
 */
export function tokenRequester(
  egress: Egress,
  options: { timeoutMs?: number } = {},
): (tokenUrl: string, form: Record<string, string>) => Promise<TokenResponse> {
  return async (tokenUrl, form) => {
    const response = await egress.request({
      method: 'POST',
      url: tokenUrl,
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' },
      body: new URLSearchParams(form).toString(),
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    });
    const fields = parseTokenBody(response.body);
    const ok = response.status >= 200 && response.status < 300 && str(fields['access_token']) !== undefined;
    if (ok) return { ok, status: response.status };
    const said = [str(fields['error']), str(fields['error_description'])].filter(Boolean).join(': ');
    const secrets = Object.entries(form).filter(([k]) => !PUBLIC_FORM_FIELDS.has(k)).map(([, v]) => v);
    const error = maskSecrets(said ? said.slice(0, 300) : 'no access token in the answer', secrets);
    return { ok, status: response.status, error };
  };
}
