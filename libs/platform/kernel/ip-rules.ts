import ipaddr from 'ipaddr.js';

/** An allow-list entry: one address (v4 or v6) or a CIDR range. */
export function isValidIpRule(rule: string): boolean {
  try {
    const [address = '', bits, ...rest] = rule.split('/');
    if (rest.length > 0) return false;
    // ipaddr.js also reads shorthand like `10` or `1.2.3`, which people misread: four parts only.
    if (!ipaddr.IPv4.isValidFourPartDecimal(address) && !ipaddr.IPv6.isValid(address)) return false;
    if (bits !== undefined) ipaddr.parseCIDR(rule);
    return true;
  } catch {
    return false;
  }
}

/** Whether the address matches any rule; IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) count as IPv4. */
export function ipAllowed(address: string, rules: readonly string[]): boolean {
  if (rules.length === 0) return true;
  let ip: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    ip = ipaddr.process(address);
  } catch {
    return false;
  }
  for (const rule of rules) {
    // Creation rejects malformed rules; one that got stored anyway must never widen access.
    if (!isValidIpRule(rule)) continue;
    try {
      if (rule.includes('/')) {
        const [range, bits] = ipaddr.parseCIDR(rule);
        if (ip.kind() === range.kind() && ip.match([range, bits] as [typeof ip, number])) return true;
      } else {
        const one = ipaddr.process(rule);
        if (one.kind() === ip.kind() && one.toNormalizedString() === ip.toNormalizedString()) return true;
      }
    } catch {
      continue;
    }
  }
  return false;
}

/**
 * Whether every address `child` allows is also allowed by `parent` (empty = any address).
 * A child rule is covered when one parent rule contains it: an address inside a range, or
 * a range inside a wider (or equal) range of the same family.
 */
export function ipRulesNarrow(child: readonly string[], parent: readonly string[]): boolean {
  if (parent.length === 0) return true;
  if (child.length === 0) return false;
  return child.every((rule) => isValidIpRule(rule) && parent.some((outer) => isValidIpRule(outer) && ruleWithin(rule, outer)));
}

function ruleWithin(rule: string, outer: string): boolean {
  const [inner, innerBits] = asRange(rule);
  const [range, bits] = asRange(outer);
  return inner.kind() === range.kind() && innerBits >= bits && inner.match([range, bits] as [typeof inner, number]);
}

function asRange(rule: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (rule.includes('/')) return ipaddr.parseCIDR(rule);
  const ip = ipaddr.process(rule);
  return [ip, ip.kind() === 'ipv4' ? 32 : 128];
}
