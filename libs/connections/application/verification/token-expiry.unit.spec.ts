import { accessTokenExpired, accessTokenExpiryMs, hasRefreshToken, jwtExpiryMs } from './token-expiry';

const NOW = new Date('2025-06-01T12:00:00Z');
const seconds = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** An unsigned JWT whose payload is `claims` (the signature is never checked here). */
function jwt(claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'RS256', typ: 'JWT' })}.${part(claims)}.c2lnbmF0dXJl`;
}

describe('accessTokenExpired', () => {
  it('reads expires_at, with the skew counting as expired', () => {
    expect(accessTokenExpired({ access_token: 'opaque', expires_at: '2025-06-01T11:59:59Z' }, NOW)).toBe(true);
    expect(accessTokenExpired({ access_token: 'opaque', expires_at: '2025-06-01T12:00:30Z' }, NOW)).toBe(true);
    expect(accessTokenExpired({ access_token: 'opaque', expires_at: '2025-06-01T12:00:30Z' }, NOW, 0)).toBe(false);
    expect(accessTokenExpired({ access_token: 'opaque', expires_at: '2025-06-01T13:00:00Z' }, NOW)).toBe(false);
  });

  it("reads a JWT access token's exp when no expires_at says otherwise", () => {
    expect(accessTokenExpired({ access_token: jwt({ exp: seconds('2025-06-01T11:00:00Z') }) }, NOW)).toBe(true);
    expect(accessTokenExpired({ access_token: jwt({ exp: seconds('2025-06-01T14:00:00Z') }) }, NOW)).toBe(false);
    // The earlier of the two wins: a stale expires_at is not trusted over the token itself.
    const both = { access_token: jwt({ exp: seconds('2025-06-01T11:00:00Z') }), expires_at: '2025-06-02T00:00:00Z' };
    expect(accessTokenExpired(both, NOW)).toBe(true);
    expect(accessTokenExpiryMs(both)).toBe(Date.parse('2025-06-01T11:00:00Z'));
  });

  it('takes a token with no stated expiry as valid, and ignores what does not parse', () => {
    expect(accessTokenExpired({ access_token: 'opaque' }, NOW)).toBe(false);
    expect(accessTokenExpired({ access_token: 'a.b.c', expires_at: 'not a date' }, NOW)).toBe(false);
    expect(jwtExpiryMs(jwt({ sub: 'x' }))).toBeUndefined();
    expect(jwtExpiryMs(`${jwt({ exp: 1 }).split('.')[0] ?? ''}.!!!.x`)).toBeUndefined();
  });
});

describe('hasRefreshToken', () => {
  it('is true for a non-empty string only', () => {
    expect(hasRefreshToken({ refresh_token: 'r' })).toBe(true);
    expect(hasRefreshToken({ refresh_token: '' })).toBe(false);
    expect(hasRefreshToken({})).toBe(false);
  });
});
