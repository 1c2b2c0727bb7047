/**
 * When an authorization_code credential needs a refresh before it is used. Two sources say so:
 * the `expires_at` stored with the token (from the token response's `expires_in`), and the `exp`
 * claim when the access token is itself a JWT (Microsoft, Atlassian). Either one being past is
 * enough. The JWT signature is not checked: the vendor does that, this only reads a date.
 *
 * `skewMs` refreshes a little early, so that a token does not expire between this check and the
 * vendor reading it (clock drift, a slow request).
 */
import type { JsonObject } from './templates';
import { isObject } from './templates';

const JWT = /^[A-Za-z0-9_-]+\.([A-Za-z0-9_-]+)\.[A-Za-z0-9_-]*$/;

/** The `exp` claim of a JWT-shaped token, in milliseconds, or undefined. */
export function jwtExpiryMs(token: string): number | undefined {
  const payload = JWT.exec(token)?.[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    const exp = isObject(claims) ? claims['exp'] : undefined;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** The earliest expiry the credentials state, in milliseconds, or undefined when they state none. */
export function accessTokenExpiryMs(credentials: JsonObject): number | undefined {
  const found: number[] = [];
  const expiresAt = credentials['expires_at'];
  if (typeof expiresAt === 'string') {
    const at = Date.parse(expiresAt);
    if (Number.isFinite(at)) found.push(at);
  }
  const accessToken = credentials['access_token'];
  if (typeof accessToken === 'string') {
    const exp = jwtExpiryMs(accessToken);
    if (exp !== undefined) found.push(exp);
  }
  return found.length ? Math.min(...found) : undefined;
}

/** True when the access token has expired, or will within `skewMs`. A token with no stated expiry is taken as valid. */
export function accessTokenExpired(credentials: JsonObject, now: Date, skewMs = 60_000): boolean {
  const expiry = accessTokenExpiryMs(credentials);
  return expiry !== undefined && expiry - skewMs <= now.getTime();
}

export function hasRefreshToken(credentials: JsonObject): boolean {
  const token = credentials['refresh_token'];
  return typeof token === 'string' && token.length > 0;
}
