import { SignJWT } from 'jose';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { Authenticator } from './authenticator';
import { JwtVerifier, type JwtSettings } from './jwt-verifier';
import { DEFAULT_ROLE_CLAIM } from './role-claim';

const SECRET = 'authenticator-unit-secret';
const settings: JwtSettings = { jwtSecret: SECRET, jwksUrl: undefined, issuer: undefined, audience: undefined, allowNoExp: false, maxLifetimeSeconds: 0 };

function token(claims: Record<string, unknown>, subject?: string): Promise<string> {
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h');
  return (subject === undefined ? jwt : jwt.setSubject(subject)).sign(new TextEncoder().encode(SECRET));
}

describe('Authenticator.authenticateAtOnce', () => {
  const authenticator = new Authenticator(new JwtVerifier(settings), createInProcessTransport(), 1_000, DEFAULT_ROLE_CLAIM);

  it('knows a token verified lately at once, as authenticate gave it; nothing before that', async () => {
    const bearer = `Bearer ${await token({ workspace_id: 'ws', roles: ['admin'] }, 'alice')}`;
    expect(authenticator.authenticateAtOnce(bearer)).toBeUndefined();
    const caller = await authenticator.authenticate(bearer, 'req-1');
    expect(authenticator.authenticateAtOnce(bearer)).toEqual(caller);
    expect(caller).toEqual({ kind: 'user', userId: 'alice', role: 'admin', defaultWorkspace: 'ws', workspaces: new Set(['ws']) });
  });

  it('leaves to authenticate what takes waiting or is refused: no header, another scheme, an API key', () => {
    for (const header of [undefined, '', 'Basic abc', 'Bearer lore_sk_abc']) expect(authenticator.authenticateAtOnce(header)).toBeUndefined();
  });

  it('refuses a verified token naming no subject as authenticate does', async () => {
    const bearer = `Bearer ${await token({ workspace_id: 'ws' })}`;
    await expect(authenticator.authenticate(bearer, 'req-2')).rejects.toThrow('Token has no subject');
    expect(() => authenticator.authenticateAtOnce(bearer)).toThrow('Token has no subject');
  });
});
