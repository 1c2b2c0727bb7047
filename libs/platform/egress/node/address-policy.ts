import ipaddr from 'ipaddr.js';
import { ipAllowed, isValidIpRule } from '@lore/platform/kernel';

/**
 * Which addresses outbound requests may reach: public unicast always; anything else (private,
 * loopback, link-local with the cloud metadata service, CGNAT, multicast, reserved…) only when
 * the operator's allow list names the address, a range holding it, or the host itself.
 */
export interface AllowList {
  /** IPs and CIDR ranges (kernel ip-rules syntax). */
  readonly ipRules: readonly string[];
  /** Lower-case hostnames; `*.example.internal` stands for every subdomain of it. */
  readonly hosts: readonly string[];
}

/** The ipaddr.js range of an address ('unicast' = public), IPv4-mapped IPv6 judged as its IPv4. */
export function addressRange(address: string): string {
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    // process() turns ::ffff:a.b.c.d into a.b.c.d, so a mapped loopback is a loopback.
    ip = ipaddr.process(address);
  } catch {
    return 'unparseable';
  }
  const range = ip.range();
  // ipaddr.js calls the deprecated IPv4-compatible form (::a.b.c.d) unicast; some stacks still
  // route it to the embedded IPv4 address, so it is never "public".
  if (range === 'unicast' && ip.kind() === 'ipv6' && ip.toByteArray().slice(0, 12).every((b) => b === 0)) {
    return 'ipv4Compatible';
  }
  return range;
}

export function isPublicAddress(address: string): boolean {
  return addressRange(address) === 'unicast';
}

const RANGE_WORDS: Readonly<Record<string, string>> = {
  private: 'a private',
  loopback: 'a loopback',
  linkLocal: 'a link-local',
  uniqueLocal: 'a unique-local (private IPv6)',
  carrierGradeNat: 'a carrier-grade NAT',
  unspecified: 'an unspecified',
  broadcast: 'a broadcast',
  multicast: 'a multicast',
  reserved: 'a reserved',
};

/** "a private", "a link-local", … for messages such as "resolves to 10.0.0.5, a private address". */
export function describeRange(range: string): string {
  return RANGE_WORDS[range] ?? `a special-purpose (${range})`;
}

/** Whether `hostname` (from a URL) is named by a host entry: exact, or a subdomain of a `*.` entry. */
export function hostMatches(hostname: string, hosts: readonly string[]): boolean {
  const host = normalizeHost(hostname);
  return hosts.some((entry) => (entry.startsWith('*.') ? host.endsWith(entry.slice(1)) : host === entry));
}

/** Lower case, without the root dot (`Example.COM.` and `example.com` are one host). */
export function normalizeHost(hostname: string): string {
  return hostname.toLowerCase().replace(/\.$/, '');
}

/**
 * The first address of `addresses` the policy does not permit, or undefined when all are
 * permitted. Every address must pass, not just one: the connection may go to any of them.
 */
export function firstBlockedAddress(hostname: string, addresses: readonly string[], allow: AllowList): string | undefined {
  if (hostMatches(hostname, allow.hosts)) return undefined;
  // ipAllowed treats an empty rule list as "anything goes": never ask it about one.
  return addresses.find((a) => !isPublicAddress(a) && !(allow.ipRules.length > 0 && ipAllowed(a, allow.ipRules)));
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** Parses one allow-list entry into an IP rule or a host; throws naming the entry when it is neither. */
export function parseAllowEntry(raw: string): { ip: string } | { host: string } {
  const entry = raw.trim();
  if (isValidIpRule(entry)) return { ip: entry };
  const host = normalizeHost(entry);
  const labels = (host.startsWith('*.') ? host.slice(2) : host).split('.');
  // A last label of digits (or 0x…) makes WHATWG URL read the host as an IPv4 address, so as a
  // hostname the entry could never match: it is a mistyped address or range.
  const numeric = /^(\d+|0x[0-9a-f]*)$/.test(labels[labels.length - 1] ?? '');
  if (host.length > 253 || numeric || !labels.every((label) => LABEL.test(label))) {
    throw new Error(
      `LORE_EGRESS_ALLOW: ${JSON.stringify(entry)} is not an IP address, a CIDR range or a hostname ` +
        '(examples: 10.0.0.5, 10.0.0.0/8, fd00::/8, api.internal, *.corp.example)',
    );
  }
  return { host };
}

/** Compiles entries (already split) into an AllowList; throws on the first bad entry. */
export function compileAllowList(entries: readonly string[]): AllowList {
  const ipRules: string[] = [];
  const hosts: string[] = [];
  for (const entry of entries) {
    const parsed = parseAllowEntry(entry);
    if ('ip' in parsed) ipRules.push(parsed.ip);
    else hosts.push(parsed.host);
  }
  return { ipRules, hosts };
}

/**
 * Reads `LORE_EGRESS_ALLOW`-style text: comma-separated IPs, CIDR ranges and hostnames, blanks
 * ignored. Returns the entries trimmed (hostnames lower-cased); throws a clear Error naming the
 * first entry that is none of those, so a typo fails at startup instead of silently allowing
 * nothing (or, worse, something else).
 */
export function parseEgressAllowList(text: string | undefined): string[] {
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.map((entry) => {
    const parsed = parseAllowEntry(entry);
    return 'ip' in parsed ? parsed.ip : parsed.host;
  });
}
