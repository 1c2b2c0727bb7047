import { WebhookUrl } from './webhook.messages';

const verdict = (url: string): string => {
  const parsed = WebhookUrl.safeParse(url);
  return parsed.success ? 'ok' : (parsed.error.issues[0]?.message ?? 'refused');
};

describe('WebhookUrl (WHATWG URL semantics)', () => {
  it('takes IPv6 literals like any host (where they may point is the egress policy\'s call, at delivery)', () => {
    expect(verdict('https://[2001:db8::1]/hook')).toBe('ok');
    expect(verdict('http://[2606:4700:4700::1111]:8080/x?y=1')).toBe('ok');
    expect(verdict('https://[::ffff:1.2.3.4]/')).toBe('ok');
    expect(verdict('https://1.2.3.4/x')).toBe('ok');
    expect(verdict('https://bücher.example/')).toBe('ok');
  });

  it('reads @ after # or ? as part of the fragment or query, never as credentials', () => {
    expect(verdict('https://example.com/hook#@evil.example')).toMatch(/fragment/);
    expect(verdict('https://example.com/hook#@evil.example')).not.toMatch(/credentials/);
    expect(verdict('https://example.com/hook?next=@evil.example')).toBe('ok');
    expect(verdict('https://example.com/p@th')).toBe('ok');
  });

  it('refuses credentials, fragments, other schemes and what is no URL', () => {
    expect(verdict('https://user:pw@example.com/')).toMatch(/credentials/);
    expect(verdict('https://user@example.com/')).toMatch(/credentials/);
    expect(verdict('https://example.com/#')).toMatch(/fragment/);
    expect(verdict('ftp://example.com/')).toMatch(/scheme/);
    expect(verdict('https://[v1.x]/')).toMatch(/Invalid URL/);
    expect(verdict('https://[::1/')).toMatch(/Invalid URL/);
    expect(verdict('https://exa mple.com/')).toMatch(/Invalid URL/);
    expect(verdict('/relative')).toMatch(/Invalid URL/);
    expect(verdict(`https://example.com/${'a'.repeat(2_000)}`)).not.toBe('ok');
  });
});
