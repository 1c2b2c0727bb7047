import { AppError } from '@lore/platform/kernel';
import type { Caller } from '@lore/platform/http';
import { send, type Transport } from '@lore/platform/transport/port';
import { API_KEY_PREFIX, keysMessages } from '@lore/keys/contracts';
import type { JwtVerifier } from './jwt-verifier';

/** Resolves `Authorization: Bearer <JWT | API key>` to a caller (ARCHITECTURE §4, DualAuthScheme). */
export class Authenticator {
  constructor(
    private readonly jwt: JwtVerifier,
    private readonly transport: Transport,
  ) {}

  async authenticate(authorization: string | undefined, requestId: string): Promise<Caller> {
    if (!authorization) throw new AppError('unauthenticated', 'Not authenticated');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    const token = match?.[1];
    if (token === undefined) throw new AppError('unauthenticated', 'Authorization must be "Bearer <token>"');
    if (token.startsWith(API_KEY_PREFIX)) {
      const principal = await send(this.transport, keysMessages.authenticate, { token }, { requestId });
      return { kind: 'api_key', ...principal };
    }
    const claims = await this.jwt.verify(token);
    if (typeof claims.sub !== 'string' || claims.sub === '') throw new AppError('unauthenticated', 'Token has no subject');
    const defaultWorkspace = typeof claims['workspace_id'] === 'string' && claims['workspace_id'] !== '' ? claims['workspace_id'] : undefined;
    const others = Array.isArray(claims['workspaces']) ? claims['workspaces'].filter((w): w is string => typeof w === 'string' && w !== '') : [];
    return {
      kind: 'user',
      userId: claims.sub,
      defaultWorkspace,
      workspaces: new Set(defaultWorkspace ? [defaultWorkspace, ...others] : others),
    };
  }
}
