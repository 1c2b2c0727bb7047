import { EgressRefused } from '@lore/platform/egress/port';
import { addressRange, compileAllowList, describeRange, firstBlockedAddress, hostMatches, isPublicAddress, parseEgressAllowList } from './address-policy';
import { createNodeEgress } from './node-egress';
import { redirectTarget } from './url-rules';

describe('address classification', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['224.0.0.1', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    // IPv4-mapped IPv6 is judged as the IPv4 address it carries.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    // Deprecated IPv4-compatible form: ipaddr.js alone would call it unicast.
    ['::7f00:1', 'ipv4Compatible'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['not-an-ip', 'unparseable'],
  ])('%s is %s, not public', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '2606:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(addressRange(address)).toBe('unicast');
    expect(isPublicAddress(address)).toBe(true);
  });

  it('describes ranges in words for messages', () => {
    expect(describeRange('private')).toBe('a private');
    expect(describeRange('linkLocal')).toBe('a link-local');
    expect(describeRange('unspecified')).toBe('an unspecified');
    expect(describeRange('rfc6052')).toBe('a special-purpose (rfc6052)');
  });
});

describe('parseEgressAllowList', () => {
  it('reads comma-separated IPs, CIDRs and hostnames, ignoring blanks and lower-casing hosts', () => {
    expect(parseEgressAllowList(' 10.0.0.5 , 10.0.0.0/8,,fd00::/8, Api.Internal. , *.Corp.Example ,')).toEqual([
      '10.0.0.5',
      '10.0.0.0/8',
      'fd00::/8',
      'api.internal',
      '*.corp.example',
    ]);
  });

  it.each([undefined, '', ' , '])('is empty for %j', (text) => {
    expect(parseEgressAllowList(text)).toEqual([]);
  });

  it.each(['10.0.0.0/33', '10.0.0.300', '1.2.3', '10/8', '2001:db8::/129', 'http://api.internal', '*', 'a..b', '-bad.example', 'api.internal:8080', '*.'])(
    'throws naming the bad entry %j',
    (entry) => {
      expect(() => parseEgressAllowList(`10.0.0.1,${entry},api.internal`)).toThrow(JSON.stringify(entry));
      expect(() => parseEgressAllowList(entry)).toThrow(/LORE_EGRESS_ALLOW: .* is not an IP address, a CIDR range or a hostname/);
    },
  );

  it('createNodeEgress refuses a bad entry at construction', () => {
    expect(() => createNodeEgress({ allow: ['10.0.0.0/33'] })).toThrow('"10.0.0.0/33"');
  });
});

describe('allow-list matching', () => {
  it('a *. entry matches subdomains at any depth, case- and trailing-dot-insensitively, but not the apex', () => {
    const hosts = ['*.example.internal'];
    expect(hostMatches('a.example.internal', hosts)).toBe(true);
    expect(hostMatches('a.b.example.internal', hosts)).toBe(true);
    expect(hostMatches('A.Example.INTERNAL.', hosts)).toBe(true);
    expect(hostMatches('example.internal', hosts)).toBe(false);
    expect(hostMatches('badexample.internal', hosts)).toBe(false);
    expect(hostMatches('example.internal.evil.com', hosts)).toBe(false);
  });

  it('a plain entry matches that host only', () => {
    expect(hostMatches('API.internal', ['api.internal'])).toBe(true);
    expect(hostMatches('x.api.internal', ['api.internal'])).toBe(false);
    expect(hostMatches('api.internal.evil.com', ['api.internal'])).toBe(false);
  });

  it('every resolved address must pass, not just one', () => {
    const none = compileAllowList([]);
    expect(firstBlockedAddress('mixed.test', ['8.8.8.8', '10.0.0.1'], none)).toBe('10.0.0.1');
    expect(firstBlockedAddress('public.test', ['8.8.8.8', '2606:4700::1111'], none)).toBeUndefined();
  });

  it('an empty IP list permits nothing extra (the kernel helper reads empty as "any")', () => {
    expect(firstBlockedAddress('h', ['10.0.0.1'], compileAllowList(['other.host']))).toBe('10.0.0.1');
  });

  it('IP and CIDR entries permit those addresses, mapped IPv6 included; a host entry permits whatever it resolves to', () => {
    const allow = compileAllowList(['10.0.0.0/8', '::1', 'db.internal']);
    expect(firstBlockedAddress('h', ['10.9.8.7', '::ffff:10.1.1.1', '::1'], allow)).toBeUndefined();
    expect(firstBlockedAddress('h', ['10.9.8.7', '192.168.0.1'], allow)).toBe('192.168.0.1');
    expect(firstBlockedAddress('DB.internal', ['192.168.0.1', '169.254.169.254'], allow)).toBeUndefined();
  });
});

describe('redirectTarget', () => {
  const from = new URL('https://api.example.com/v1/me?token=x');
  const reason = (location: string, base = from): string | undefined => {
    try {
      redirectTarget(base, location);
      return undefined;
    } catch (error) {
      return error instanceof EgressRefused ? error.reason : 'other';
    }
  };

  it('follows relative and same-host absolute locations (host case, trailing dot and explicit default port aside)', () => {
    expect(redirectTarget(from, '/v2/me#frag').href).toBe('https://api.example.com/v2/me');
    expect(redirectTarget(from, 'https://API.example.com.:443/x').pathname).toBe('/x');
  });

  it('refuses another host, another port and https down to http', () => {
    expect(reason('https://evil.example.com/')).toBe('cross_host_redirect');
    expect(reason('https://api.example.com:8443/')).toBe('cross_host_redirect');
    expect(reason('http://api.example.com/')).toBe('cross_host_redirect');
    expect(reason('http://api.example.com:443/')).toBe('cross_host_redirect');
    // http → https changes the port, so it is another host too: the message names the https URL.
    expect(reason('https://plain.example/', new URL('http://plain.example/'))).toBe('cross_host_redirect');
  });

  it('refuses other schemes and credentials in the location', () => {
    expect(reason('file:///etc/passwd')).toBe('invalid_url');
    expect(reason('https://u:p@api.example.com/')).toBe('invalid_url');
    expect(reason('http://[::1')).toBe('invalid_url');
  });
});
