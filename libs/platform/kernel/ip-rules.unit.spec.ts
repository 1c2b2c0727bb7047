import { ipAllowed, isValidIpRule } from './ip-rules';

describe('isValidIpRule', () => {
  it.each(['10.0.0.1', '0.0.0.0', '255.255.255.255', '::1', '::', '2001:db8::1', '2001:0db8:0000:0000:0000:0000:0000:0001', '::ffff:10.1.2.3'])(
    'accepts the address %s',
    (rule) => {
      expect(isValidIpRule(rule)).toBe(true);
    },
  );

  it.each(['10.0.0.0/8', '10.1.2.3/32', '0.0.0.0/0', '192.168.0.0/16', '2001:db8::/32', '::/0', '::1/128'])('accepts the CIDR range %s', (rule) => {
    expect(isValidIpRule(rule)).toBe(true);
  });

  it.each([
    '10.0.0.300',
    '10.0.0.0/33',
    '2001:db8::/129',
    'abc',
    '1.2.3',
    '',
    '10.0.0.0/',
    '/8',
    '10.0.0.0/-1',
    '10.0.0.0/8/8',
    '10.0.0.1 ',
    '0x0a.0.0.1',
    '010.0.0.1',
    '2001:db8:::1',
    '10.0.0.0-10.0.0.9',
  ])('rejects %j', (rule) => {
    expect(isValidIpRule(rule)).toBe(false);
  });

  // The single-address branch insists on four-part decimal IPv4 so that '1.2.3' cannot silently
  // mean 1.2.0.3; a CIDR rule must hold to the same, or '1.2.3/24' becomes 1.2.0.0/24.
  it.each(['1.2.3/24', '10/8', '10.1/16'])('rejects the CIDR %j whose address is not four-part decimal', (rule) => {
    expect(isValidIpRule(rule)).toBe(false);
  });
});

describe('ipAllowed', () => {
  it('allows every address when the list is empty', () => {
    expect(ipAllowed('10.0.0.1', [])).toBe(true);
    expect(ipAllowed('2001:db8::1', [])).toBe(true);
  });

  it('matches a single IPv4 address exactly', () => {
    expect(ipAllowed('10.0.0.1', ['10.0.0.1'])).toBe(true);
    expect(ipAllowed('10.0.0.2', ['10.0.0.1'])).toBe(false);
  });

  it('matches an IPv4 CIDR range, bounds included', () => {
    const rules = ['192.168.4.0/22'];
    expect(ipAllowed('192.168.4.0', rules)).toBe(true);
    expect(ipAllowed('192.168.7.255', rules)).toBe(true);
    expect(ipAllowed('192.168.3.255', rules)).toBe(false);
    expect(ipAllowed('192.168.8.0', rules)).toBe(false);
  });

  it('lets 0.0.0.0/0 allow any IPv4 address but no IPv6 one', () => {
    expect(ipAllowed('203.0.113.9', ['0.0.0.0/0'])).toBe(true);
    expect(ipAllowed('2001:db8::1', ['0.0.0.0/0'])).toBe(false);
  });

  it('matches a single IPv6 address whatever its spelling', () => {
    expect(ipAllowed('2001:db8::1', ['2001:0db8:0000:0000:0000:0000:0000:0001'])).toBe(true);
    expect(ipAllowed('2001:DB8::1', ['2001:db8::1'])).toBe(true);
    expect(ipAllowed('2001:db8::2', ['2001:db8::1'])).toBe(false);
  });

  it('matches an IPv6 CIDR range', () => {
    expect(ipAllowed('2001:db8:abcd::1', ['2001:db8::/32'])).toBe(true);
    expect(ipAllowed('2001:db9::1', ['2001:db8::/32'])).toBe(false);
  });

  it('treats an IPv4-mapped IPv6 client address as the IPv4 address', () => {
    expect(ipAllowed('::ffff:10.1.2.3', ['10.1.2.3'])).toBe(true);
    expect(ipAllowed('::ffff:10.1.2.3', ['10.0.0.0/8'])).toBe(true);
    expect(ipAllowed('::ffff:11.1.2.3', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('::ffff:10.1.2.4', ['10.1.2.3'])).toBe(false);
  });

  it('treats an IPv4-mapped rule as the IPv4 address', () => {
    expect(ipAllowed('10.1.2.3', ['::ffff:10.1.2.3'])).toBe(true);
  });

  it('never matches an IPv4 client against an IPv6 rule or the reverse', () => {
    expect(ipAllowed('10.0.0.1', ['::/0'])).toBe(false);
    expect(ipAllowed('::1', ['127.0.0.1'])).toBe(false);
  });

  it('allows when any rule matches', () => {
    expect(ipAllowed('172.16.5.5', ['10.0.0.0/8', '2001:db8::/32', '172.16.0.0/12'])).toBe(true);
  });

  it('refuses an address that does not parse', () => {
    expect(ipAllowed('not-an-ip', ['10.0.0.0/8'])).toBe(false);
    expect(ipAllowed('', ['10.0.0.0/8'])).toBe(false);
  });

  it('skips a malformed stored rule instead of failing, and still applies the others', () => {
    expect(ipAllowed('10.0.0.1', ['abc', '10.0.0.0/33', '10.0.0.1'])).toBe(true);
    expect(ipAllowed('10.0.0.1', ['abc', '10.0.0.0/33'])).toBe(false);
  });

  it('does not let a three-part CIDR rule admit addresses outside what it spells', () => {
    // '1.2.3/24' reads as 1.2.3.0/24 to a person; it must never admit 1.2.0.x.
    expect(ipAllowed('1.2.0.5', ['1.2.3/24'])).toBe(false);
  });
});
