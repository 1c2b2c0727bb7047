import { jwtConfigurationWarning, type JwtSettings } from './jwt-verifier';

const none: JwtSettings = { jwtSecret: undefined, jwksUrl: undefined, issuer: undefined, audience: undefined, allowNoExp: false, maxLifetimeSeconds: 0 };

describe('jwtConfigurationWarning', () => {
  it('warns when neither AUTH_JWT_SECRET nor AUTH_JWKS_URL is set', () => {
    expect(jwtConfigurationWarning(none)).toMatch(/AUTH_JWT_SECRET.*AUTH_JWKS_URL/);
    expect(jwtConfigurationWarning({ ...none, jwtSecret: '', jwksUrl: '' })).not.toBeNull();
  });

  it('is silent when either is set', () => {
    expect(jwtConfigurationWarning({ ...none, jwtSecret: 'secret' })).toBeNull();
    expect(jwtConfigurationWarning({ ...none, jwksUrl: 'https://idp.example/jwks.json' })).toBeNull();
  });
});
