import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK, type JWTPayload, type KeyLike } from 'jose';
import { AppError } from '@lore/platform/kernel';
import { JwtVerifier, type JwtSettings } from './jwt-verifier';

const SECRET = 'test-secret-that-is-long-enough-for-hs256';
const none: JwtSettings = { jwtSecret: undefined, jwksUrl: undefined, issuer: undefined, audience: undefined, allowNoExp: false, maxLifetimeSeconds: 0 };
const nowSeconds = (): number => Math.floor(Date.now() / 1000);

function hs256(claims: JWTPayload, secret = SECRET, expiresIn: string | number = '5m'): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().setExpirationTime(expiresIn).sign(new TextEncoder().encode(secret));
}

function rs256(claims: JWTPayload, key: KeyLike, kid: string | undefined): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader(kid === undefined ? { alg: 'RS256' } : { alg: 'RS256', kid })
    .setIssuedAt()
    .setExpirationTime('5m')
    .sign(key);
}

function unexpiring(claims: JWTPayload): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt().sign(new TextEncoder().encode(SECRET));
}

/** Expects the verification to fail the way the gateway turns into 401. */
async function expectUnauthenticated(promise: Promise<unknown>, message?: RegExp): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  expect((error as AppError).code).toBe('unauthenticated');
  if (message) expect((error as AppError).message).toMatch(message);
}

describe('JwtVerifier', () => {
  describe('HS256 with a shared secret', () => {
    const verifier = new JwtVerifier({ ...none, jwtSecret: SECRET });

    it('accepts a valid token and returns its claims', async () => {
      const payload = await verifier.verify(await hs256({ sub: 'user-1', workspace_id: 'ws-1' }));
      expect(payload).toMatchObject({ sub: 'user-1', workspace_id: 'ws-1' });
    });

    it('refuses a token without exp, saying so', async () => {
      await expectUnauthenticated(verifier.verify(await unexpiring({ sub: 'user-1' })), /no exp/);
    });

    it('rejects a token signed with another secret', async () => {
      await expectUnauthenticated(verifier.verify(await hs256({ sub: 'user-1' }, 'another-secret-another-secret-12345')));
    });

    it('rejects an expired token, saying so', async () => {
      await expectUnauthenticated(verifier.verify(await hs256({ sub: 'user-1' }, SECRET, nowSeconds() - 60)), /expired/i);
    });

    it('rejects a token whose payload was altered', async () => {
      const [header, , signature] = (await hs256({ sub: 'user-1' })).split('.');
      const forged = Buffer.from(JSON.stringify({ sub: 'admin', exp: nowSeconds() + 300 })).toString('base64url');
      await expectUnauthenticated(verifier.verify(`${header}.${forged}.${signature}`));
    });

    it.each(['', 'abc', 'a.b.c', 'not.a.jwt.at.all'])('rejects the malformed token %j', async (token) => {
      await expectUnauthenticated(verifier.verify(token));
    });

    it("rejects an unsigned token (alg 'none')", async () => {
      const header = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
      const body = Buffer.from(JSON.stringify({ sub: 'admin', exp: nowSeconds() + 300 })).toString('base64url');
      await expectUnauthenticated(verifier.verify(`${header}.${body}.`));
    });

    it('rejects an RS256 token when no JWKS is configured', async () => {
      const { privateKey } = await generateKeyPair('RS256');
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'user-1' }, privateKey, 'k1')), /RS256/);
    });
  });

  describe('lifetime', () => {
    const day = 24 * 60 * 60;

    it('accepts a token without exp only when AUTH_JWT_ALLOW_NO_EXP is set (and then bounds nothing)', async () => {
      const open = new JwtVerifier({ ...none, jwtSecret: SECRET, allowNoExp: true, maxLifetimeSeconds: day });
      await expect(open.verify(await unexpiring({ sub: 'user-1' }))).resolves.toMatchObject({ sub: 'user-1' });
    });

    it('refuses a token valid for longer than the maximum (exp − iat)', async () => {
      const bounded = new JwtVerifier({ ...none, jwtSecret: SECRET, maxLifetimeSeconds: day });
      await expectUnauthenticated(bounded.verify(await hs256({ sub: 'user-1' }, SECRET, '25h')), /exceeds the maximum of 86400 seconds/);
      await expect(bounded.verify(await hs256({ sub: 'user-1' }, SECRET, '23h'))).resolves.toMatchObject({ sub: 'user-1' });
    });

    it('measures from now when iat is absent, and never from an iat in the future', async () => {
      const bounded = new JwtVerifier({ ...none, jwtSecret: SECRET, maxLifetimeSeconds: 3600 });
      const noIat = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('2h').sign(new TextEncoder().encode(SECRET));
      await expectUnauthenticated(bounded.verify(noIat), /exceeds the maximum/);
      const inAYear = nowSeconds() + 365 * day;
      const futureIat = await new SignJWT({ sub: 'user-1' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(inAYear).setExpirationTime(inAYear + 60).sign(new TextEncoder().encode(SECRET));
      await expectUnauthenticated(bounded.verify(futureIat), /exceeds the maximum/);
    });

    it('leaves the lifetime unbounded at 0', async () => {
      const unbounded = new JwtVerifier({ ...none, jwtSecret: SECRET, maxLifetimeSeconds: 0 });
      await expect(unbounded.verify(await hs256({ sub: 'user-1' }, SECRET, '3650d'))).resolves.toMatchObject({ sub: 'user-1' });
    });
  });

  it('rejects an HS256 token when only a JWKS is configured', async () => {
    // The URL is never fetched: the token's algorithm is refused first.
    const verifier = new JwtVerifier({ ...none, jwksUrl: 'http://127.0.0.1:9/jwks.json' });
    await expectUnauthenticated(verifier.verify(await hs256({ sub: 'user-1' })), /HS256/);
  });

  it('answers with an AppError, not a raw socket error, when the JWKS server is unreachable', async () => {
    // A port that was just freed: nothing listens, the connection is refused. A raw error here
    // reaches the gateway as a 500; the caller should get 401 (or 503: the identity provider is down).
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const verifier = new JwtVerifier({ ...none, jwksUrl: `http://127.0.0.1:${port}/jwks.json` });
    const { privateKey } = await generateKeyPair('RS256');
    const error = await verifier.verify(await rs256({ sub: 'user-1' }, privateKey, 'k1')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AppError);
    expect(['unauthenticated', 'unavailable']).toContain((error as AppError).code);
  });

  it('rejects every token when nothing is configured, saying that JWTs are not configured', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const verifier = new JwtVerifier(none);
    for (const token of [await hs256({ sub: 'user-1' }), await rs256({ sub: 'user-1' }, privateKey, 'k1'), 'not-a-jwt']) {
      await expectUnauthenticated(verifier.verify(token), /JWT authentication is not configured on this server \(set AUTH_JWT_SECRET or AUTH_JWKS_URL\)/);
    }
  });

  describe('issuer and audience', () => {
    const verifier = new JwtVerifier({ ...none, jwtSecret: SECRET, issuer: 'https://idp.example', audience: 'lore' });

    it('accepts the configured issuer and audience', async () => {
      await expect(verifier.verify(await hs256({ sub: 'u', iss: 'https://idp.example', aud: 'lore' }))).resolves.toMatchObject({ sub: 'u' });
      await expect(verifier.verify(await hs256({ sub: 'u', iss: 'https://idp.example', aud: ['other', 'lore'] }))).resolves.toMatchObject({ sub: 'u' });
    });

    it.each([
      ['another issuer', { iss: 'https://evil.example', aud: 'lore' }],
      ['no issuer', { aud: 'lore' }],
      ['another audience', { iss: 'https://idp.example', aud: 'other' }],
      ['no audience', { iss: 'https://idp.example' }],
    ])('rejects %s', async (_what, claims) => {
      await expectUnauthenticated(verifier.verify(await hs256({ sub: 'u', ...claims })));
    });

    it('accepts any issuer and audience when none is configured', async () => {
      const open = new JwtVerifier({ ...none, jwtSecret: SECRET });
      await expect(open.verify(await hs256({ sub: 'u', iss: 'https://anyone.example', aud: 'anything' }))).resolves.toMatchObject({ sub: 'u' });
    });
  });

  describe('RS256 through a JWKS', () => {
    let server: Server;
    let jwksUrl: string;
    let signing: KeyLike;
    let stranger: KeyLike;
    let served: { keys: JWK[] } = { keys: [] };
    let fetches = 0;

    beforeAll(async () => {
      const pair = await generateKeyPair('RS256');
      signing = pair.privateKey;
      stranger = (await generateKeyPair('RS256')).privateKey;
      served = { keys: [{ ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' }] };
      server = createServer((request, response) => {
        fetches++;
        if (request.url !== '/.well-known/jwks.json') {
          response.writeHead(404).end();
          return;
        }
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(served));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      jwksUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
    });

    afterAll(async () => {
      await new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve())));
    });

    it('accepts a token signed by a key of the JWKS', async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl });
      const before = fetches;
      await expect(verifier.verify(await rs256({ sub: 'user-9' }, signing, 'k1'))).resolves.toMatchObject({ sub: 'user-9' });
      expect(fetches).toBeGreaterThan(before);
    });

    it('accepts a token without kid when the JWKS holds one matching key', async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl });
      await expect(verifier.verify(await rs256({ sub: 'user-9' }, signing, undefined))).resolves.toMatchObject({ sub: 'user-9' });
    });

    it('rejects a token signed by another key under an unknown kid', async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl });
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'user-9' }, stranger, 'k2')));
    });

    it("rejects a token signed by another key claiming the JWKS key's kid", async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl });
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'user-9' }, stranger, 'k1')));
    });

    it('enforces issuer and audience for JWKS tokens too', async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl, issuer: 'https://idp.example', audience: 'lore' });
      await expect(verifier.verify(await rs256({ sub: 'u', iss: 'https://idp.example', aud: 'lore' }, signing, 'k1'))).resolves.toMatchObject({ sub: 'u' });
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'u', iss: 'https://evil.example', aud: 'lore' }, signing, 'k1')));
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'u', iss: 'https://idp.example', aud: 'other' }, signing, 'k1')));
    });

    it('rejects an HS256 token signed with the public key as HMAC secret (algorithm confusion)', async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl });
      const jwk = served.keys[0];
      const token = await new SignJWT({ sub: 'admin' })
        .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
        .setExpirationTime('5m')
        .sign(new TextEncoder().encode(JSON.stringify(jwk)));
      await expectUnauthenticated(verifier.verify(token));
    });

    it('keeps both schemes working when both are configured', async () => {
      const verifier = new JwtVerifier({ ...none, jwtSecret: SECRET, jwksUrl });
      await expect(verifier.verify(await hs256({ sub: 'hs' }))).resolves.toMatchObject({ sub: 'hs' });
      await expect(verifier.verify(await rs256({ sub: 'rs' }, signing, 'k1'))).resolves.toMatchObject({ sub: 'rs' });
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'rs' }, stranger, 'k1')));
    });

    it('rejects tokens, as unauthenticated, when the JWKS URL serves no key set', async () => {
      const verifier = new JwtVerifier({ ...none, jwksUrl: jwksUrl.replace('/.well-known/jwks.json', '/missing') });
      await expectUnauthenticated(verifier.verify(await rs256({ sub: 'u' }, signing, 'k1')));
    });
  });
});
