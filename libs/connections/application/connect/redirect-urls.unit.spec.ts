import { allowedRedirect } from './redirect-urls';

describe('allowedRedirect: no open redirect', () => {
  const allowed = ['https://app.example/connected', 'http://127.0.0.1:3000/oauth/'];
  it.each([
    ['https://app.example/connected', true],
    ['https://app.example/connected?tab=integrations', true],
    ['http://127.0.0.1:3000/oauth/done', true],
    ['https://app.example/connected/extra', false],
    ['https://app.example.evil.test/connected', false],
    ['http://app.example/connected', false],
    ['https://app.example:8443/connected', false],
    ['https://user@app.example/connected', false],
    ['https://app.example/connected#frag', false],
    ['http://127.0.0.1:3000/oauthx', false],
    ['javascript:alert(1)', false],
    ['//app.example/connected', false],
  ])('%s → %s', (url, ok) => {
    expect(allowedRedirect(url, allowed)).toBe(ok);
  });
  it('allows nothing when nothing is configured', () => {
    expect(allowedRedirect('https://app.example/connected', [])).toBe(false);
  });
});
