import { createRemoteJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import { AppError } from '@lore/platform/kernel';

export interface JwtSettings {
  readonly jwtSecret: string | undefined;
  readonly jwksUrl: string | undefined;
  readonly issuer: string | undefined;
  readonly audience: string | undefined;
  /** AUTH_JWT_ALLOW_NO_EXP: accept tokens without `exp` (they never expire); off by default. */
  readonly allowNoExp: boolean;
  /** AUTH_JWT_MAX_LIFETIME_SECONDS: the longest a token may be valid for (exp − iat, or exp − now); 0: no bound. */
  readonly maxLifetimeSeconds: number;
}

/** What a JWT caller is told when the server has no way to verify JWTs at all. */
export const JWT_NOT_CONFIGURED = 'JWT authentication is not configured on this server (set AUTH_JWT_SECRET or AUTH_JWKS_URL)';

/**
 * The warning to log at start when JWTs cannot be verified (neither AUTH_JWT_SECRET nor
 * AUTH_JWKS_URL is set), or null. Only API keys work then, and there is no JWT to create one.
 */
export function jwtConfigurationWarning(settings: JwtSettings): string | null {
  if (settings.jwtSecret || settings.jwksUrl) return null;
  return 'Neither AUTH_JWT_SECRET nor AUTH_JWKS_URL is set: every JWT will be refused (401), so only existing API keys can authenticate';
}

/**
 * Verifies bearer JWTs: HS256 with AUTH_JWT_SECRET (standalone, tests) and RS256/ES256
 * through the JWKS at AUTH_JWKS_URL (production identity providers). `exp` is required
 * (unless AUTH_JWT_ALLOW_NO_EXP) and bounds the token's lifetime (AUTH_JWT_MAX_LIFETIME_SECONDS):
 * a leaked token that never expires, or expires in years, is a standing credential. `iss`
 * and `aud` are enforced when configured.
 */
const CACHE_LIMIT = 10_000;
const CACHE_TTL_MS = 60_000;

export class JwtVerifier {
  private readonly secret: Uint8Array | undefined;
  private readonly jwks: ReturnType<typeof createRemoteJWKSet> | undefined;

  constructor(private readonly settings: JwtSettings) {
    this.secret = settings.jwtSecret ? new TextEncoder().encode(settings.jwtSecret) : undefined;
    this.jwks = settings.jwksUrl ? createRemoteJWKSet(new URL(settings.jwksUrl)) : undefined;
  }

  /**
   * Verified tokens, kept until their `exp` (at most CACHE_TTL_MS): a client sends the same
   * token with every request, and verifying a signature each time is the gateway's largest
   * per-request cost. Only successes are kept; the cache is bounded.
   */
  private readonly verified = new Map<string, { readonly payload: JWTPayload; readonly until: number }>();

  /** The claims of a token verified lately (the cache, still within its `exp`), at once; undefined when only {@link verify} can tell. */
  verifiedAtOnce(token: string, now = Date.now()): JWTPayload | undefined {
    const hit = this.verified.get(token);
    return hit !== undefined && hit.until > now ? hit.payload : undefined;
  }

  async verify(token: string): Promise<JWTPayload> {
    const now = Date.now();
    const known = this.verifiedAtOnce(token, now);
    if (known !== undefined) return known;
    const hit = this.verified.get(token);
    if (hit !== undefined) {
      this.verified.delete(token);
      if (typeof hit.payload.exp === 'number' && hit.payload.exp * 1000 <= now) throw invalidToken('Token has expired');
    }
    const payload = await this.verifySignature(token);
    this.checkLifetime(payload, now);
    const expires = typeof payload.exp === 'number' ? payload.exp * 1000 : Infinity;
    if (this.verified.size >= CACHE_LIMIT) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(token, { payload, until: Math.min(expires, now + CACHE_TTL_MS) });
    return payload;
  }

  private checkLifetime(payload: JWTPayload, now: number): void {
    if (payload.exp === undefined) {
      if (this.settings.allowNoExp) return;
      throw invalidToken('Token has no exp (expiry) claim: tokens must expire');
    }
    const max = this.settings.maxLifetimeSeconds;
    if (max <= 0) return;
    // From issue, or from now when `iat` is absent or lies in the future (a future iat must not stretch the bound).
    const from = Math.min(typeof payload.iat === 'number' ? payload.iat : Infinity, Math.floor(now / 1000));
    if (payload.exp - from > max) throw invalidToken(`Token lifetime exceeds the maximum of ${max} seconds (AUTH_JWT_MAX_LIFETIME_SECONDS)`);
  }

  private async verifySignature(token: string): Promise<JWTPayload> {
    // Say so plainly rather than letting every token fail as if it were the caller's fault.
    if (!this.secret && !this.jwks) throw invalidToken(JWT_NOT_CONFIGURED);
    let alg: string | undefined;
    try {
      alg = decodeProtectedHeader(token).alg;
    } catch {
      throw invalidToken('Malformed bearer token');
    }
    const options = {
      ...(this.settings.issuer ? { issuer: this.settings.issuer } : {}),
      ...(this.settings.audience ? { audience: this.settings.audience } : {}),
    };
    try {
      if (alg === 'HS256' && this.secret) return (await jwtVerify(token, this.secret, { ...options, algorithms: ['HS256'] })).payload;
      if (alg !== 'HS256' && this.jwks) return (await jwtVerify(token, this.jwks, { ...options, algorithms: ['RS256', 'ES256', 'PS256'] })).payload;
    } catch (error) {
      if (error instanceof errors.JWTExpired) throw invalidToken('Token has expired');
      if (error instanceof errors.JOSEError) throw invalidToken('Invalid token');
      // The identity provider's key set could not be fetched: not the caller's fault.
      throw new AppError('unavailable', 'The signing keys of the identity provider (AUTH_JWKS_URL) could not be fetched');
    }
    throw invalidToken(`Tokens signed with ${alg ?? 'no algorithm'} are not accepted`);
  }
}

function invalidToken(message: string): AppError {
  return new AppError('unauthenticated', message);
}
