/**
 * One POST to an OAuth 2.0 token endpoint (RFC 6749 §3.2) through the egress, and the reading of
 * its answer. Shared by every grant in oauth-tokens.ts.
 *
 * Answers are read as JSON or, for providers that still default to it (GitHub), as a form-encoded
 * body. A provider's `error` / `error_description` is quoted to help the user, but every value
 * that was sent (client secret, assertion, refresh token) is masked out of the message first:
 * some providers echo what they were given.
 */
import type { Egress } from '@lore/platform/egress/port';
import { DEFAULT_TIMEOUT_MS, describeEgressFailure, hostOf } from './egress-failure';
import type { JsonObject } from './templates';
import { isObject, maskSecrets } from './templates';
import { valueAt } from './json-pointer';

export interface OAuthToken {
  readonly access_token: string;
  /** From `expires_in`; null when the provider did not say. */
  readonly expires_at: string | null;
  /** Present when the provider issued (or rotated) one; absent means keep the one you have. */
  readonly refresh_token?: string;
  readonly token_type?: string;
}

export type TokenOutcome =
  | { readonly ok: true; readonly token: OAuthToken }
  | {
      readonly ok: false;
      /** The token endpoint's HTTP status, or null when no answer came (refused, timed out, not sent). */
      readonly status: number | null;
      readonly error: string;
      /** RFC 6749 §5.2 `invalid_grant`: the refresh token or assertion is dead; the user must reconnect. */
      readonly invalidGrant: boolean;
    };

export interface TokenCall {
  readonly url: string;
  readonly form: Readonly<Record<string, string>>;
  /** client_secret_basic (RFC 6749 §2.3.1): the client authenticates in an Authorization header. */
  readonly basic?: { readonly clientId: string; readonly clientSecret: string } | undefined;
  /** Values that must never appear in the error (what was sent, plus the credentials' secrets). */
  readonly secrets: readonly string[];
  readonly now: Date;
  readonly timeoutMs?: number | undefined;
  /** Where the answer holds the tokens (the catalog's `token_response`); RFC 6749 §5.1's top-level fields by default. */
  readonly shape?: TokenAnswerShape | undefined;
}

/** The catalog's `token_response`: JSON Pointers into the answer, and the token type it must carry. */
export interface TokenAnswerShape {
  readonly access_token?: string | undefined;
  readonly refresh_token?: string | undefined;
  readonly expires_in?: string | undefined;
  readonly token_type_field?: string | undefined;
  readonly token_type?: string | undefined;
}

export const tokenFailure = (error: string, status: number | null = null, invalidGrant = false): TokenOutcome => ({
  ok: false,
  status,
  error,
  invalidGrant,
});

/** RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded. */
function basicHeader(clientId: string, clientSecret: string): string {
  const encode = (value: string) => new URLSearchParams({ v: value }).toString().slice(2);
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(clientSecret)}`, 'utf8').toString('base64')}`;
}

/** The answer's fields: a JSON object, or a form-encoded body; {} when it is neither. */
export function parseTokenBody(body: string): JsonObject {
  const text = body.trim();
  if (text.startsWith('{')) {
    try {
      const parsed = JSON.parse(text) as unknown;
      return isObject(parsed) ? parsed : {};
    } catch {
      return {};
    }
  }
  return /^[\w.~%+-]+=/.test(text) ? Object.fromEntries(new URLSearchParams(text)) : {};
}

/** `expires_in` (seconds; some providers send a string) as an ISO date-time, or null. */
function expiresAt(value: unknown, now: Date): string | null {
  const seconds = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof seconds !== 'number' || !Number.isFinite(seconds) || seconds <= 0) return null;
  return new Date(now.getTime() + seconds * 1000).toISOString();
}

/** Form fields that are not secret; every other value sent is masked out of messages. */
export const PUBLIC_FORM_FIELDS: ReadonlySet<string> = new Set(['grant_type', 'scope', 'client_id']);

const text = (value: unknown): string | undefined => (typeof value === 'string' && value.length > 0 ? value : undefined);

/** The provider's own words, one line, bounded: `invalid_client: Invalid client secret`. */
function providerError(fields: JsonObject): string | undefined {
  const code = text(fields['error']);
  const description = text(fields['error_description']) ?? text(fields['message']);
  const words = [code, description].filter((w): w is string => w !== undefined).join(': ');
  if (!words) return undefined;
  const line = words.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return line.length > 300 ? `${line.slice(0, 300)}…` : line;
}

export async function callTokenEndpoint(egress: Egress, call: TokenCall): Promise<TokenOutcome> {
  const timeoutMs = call.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // Everything sent is masked but the public parts (grant type, scope, client id).
  const sent = Object.entries(call.form).filter(([k]) => !PUBLIC_FORM_FIELDS.has(k)).map(([, v]) => v);
  const secrets = [...call.secrets, ...sent, ...(call.basic ? [call.basic.clientSecret] : [])];
  const mask = (message: string) => maskSecrets(message, secrets);
  const headers: Record<string, string> = { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'application/json' };
  if (call.basic) headers['Authorization'] = basicHeader(call.basic.clientId, call.basic.clientSecret);

  let response;
  try {
    response = await egress.request({ method: 'POST', url: call.url, headers, body: new URLSearchParams(call.form).toString(), timeoutMs });
  } catch (error) {
    return tokenFailure(mask(`the token endpoint ${hostOf(call.url)} could not be reached: ${describeEgressFailure(error, timeoutMs)}`));
  }

  const fields = parseTokenBody(response.body);
  const said = providerError(fields);
  const at = (pointer: string | undefined, name: string): unknown => valueAt(fields, pointer ?? `/${name}`);
  const accessToken = text(at(call.shape?.access_token, 'access_token'));
  const success = response.status >= 200 && response.status < 300;
  if (success && accessToken) {
    const refreshToken = text(at(call.shape?.refresh_token, 'refresh_token'));
    const tokenType = text(at(call.shape?.token_type_field, 'token_type'));
    const expected = call.shape?.token_type;
    if (expected !== undefined && tokenType !== undefined && tokenType.toLowerCase() !== expected.toLowerCase()) {
      return tokenFailure(`the token endpoint ${hostOf(call.url)} issued a token of type "${tokenType.slice(0, 50)}", not "${expected}"`, response.status);
    }
    return {
      ok: true,
      token: {
        access_token: accessToken,
        expires_at: expiresAt(at(call.shape?.expires_in, 'expires_in'), call.now),
        ...(refreshToken ? { refresh_token: refreshToken } : {}),
        ...(tokenType ? { token_type: tokenType } : {}),
      },
    };
  }
  const what = success ? `answered HTTP ${response.status} without an access token` : `answered HTTP ${response.status}`;
  const message = `the token endpoint ${hostOf(call.url)} ${what}${said ? ` (${said})` : ''}`;
  return tokenFailure(mask(message), response.status, fields['error'] === 'invalid_grant');
}
