import { AppError } from '@lore/platform/kernel';
import { hasLoneSurrogate, type Caller } from '@lore/platform/http';
import { send, type Transport } from '@lore/platform/transport/port';
import { API_KEY_PREFIX, keysMessages } from '@lore/keys/contracts';
import type { JWTPayload } from 'jose';
import type { JwtVerifier } from './jwt-verifier';
import { roleOf, type RoleClaimSettings } from './role-claim';

/** Longest API key token the keys service reads; a longer one cannot be a key. */
const MAX_API_KEY_CHARS = 1000;
/** Longest user or workspace id Lore stores; a token naming a longer one is refused, not half-used. */
const MAX_ID_CHARS = 255;

/** Resolves `Authorization: Bearer <JWT | API key>` to a caller (ARCHITECTURE §4, DualAuthScheme). */
export class Authenticator {
  constructor(
    private readonly jwt: JwtVerifier,
    private readonly transport: Transport,
    private readonly requestTimeoutMs: number,
    private readonly roles: RoleClaimSettings,
  ) {}

  /**
   * The caller a bearer JWT names, at once, when the verifier has the token verified lately (a
   * client sends the same token request after request); undefined when authenticating takes
   * waiting (an API key, a token not seen lately, no header): then {@link authenticate}, which
   * gives the same caller or error. Throws what `authenticate` rejects with for such a token.
   */
  authenticateAtOnce(authorization: string | undefined): Caller | undefined {
    const token = authorization ? bearerToken(authorization) : undefined;
    if (token === undefined || token.startsWith(API_KEY_PREFIX)) return undefined;
    const claims = this.jwt.verifiedAtOnce(token);
    return claims === undefined ? undefined : this.userOf(claims);
  }

  async authenticate(authorization: string | undefined, requestId: string): Promise<Caller> {
    if (!authorization) throw new AppError('unauthenticated', 'Not authenticated');
    const token = bearerToken(authorization);
    if (token === undefined) throw new AppError('unauthenticated', 'Authorization must be "Bearer <token>"');
    if (token.startsWith(API_KEY_PREFIX)) {
      if (token.length > MAX_API_KEY_CHARS) throw new AppError('unauthenticated', 'Invalid API key');
      const principal = await send(this.transport, keysMessages.authenticate, { token }, { requestId, timeoutMs: this.requestTimeoutMs });
      return { kind: 'api_key', ...principal };
    }
    return this.userOf(await this.jwt.verify(token));
  }

  /** The user a verified token's claims name; refuses subjects and workspaces Lore cannot keep. */
  private userOf(claims: JWTPayload): Caller {
    if (typeof claims.sub !== 'string' || claims.sub === '') throw new AppError('unauthenticated', 'Token has no subject');
    if (claims.sub.length > MAX_ID_CHARS) throw new AppError('unauthenticated', `Token subject is longer than ${MAX_ID_CHARS} characters`);
    // An unpaired surrogate is no character: encoded (subjects, stores) it turns into U+FFFD, and
    // two different ids would become one.
    if (hasLoneSurrogate(claims.sub)) throw new AppError('unauthenticated', 'Token subject is not valid Unicode text');
    const workspaceId = (value: unknown): value is string => typeof value === 'string' && value !== '' && value.length <= MAX_ID_CHARS && !hasLoneSurrogate(value);
    const defaultWorkspace = workspaceId(claims['workspace_id']) ? claims['workspace_id'] : undefined;
    const others = Array.isArray(claims['workspaces']) ? claims['workspaces'].filter(workspaceId) : [];
    return {
      kind: 'user',
      userId: claims.sub,
      role: roleOf(claims, this.roles),
      defaultWorkspace,
      workspaces: new Set(defaultWorkspace ? [defaultWorkspace, ...others] : others),
    };
  }
}

function bearerToken(authorization: string): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}
