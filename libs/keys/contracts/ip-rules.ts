import ipaddr from 'ipaddr.js';

/** An allow-list entry: one address (v4 or v6) or a CIDR range. */
export function isValidIpRule(rule: string): boolean {
  try {
    if (rule.includes('/')) {
      ipaddr.parseCIDR(rule);
      return true;
    }
    return ipaddr.isValid(rule) && (ipaddr.IPv4.isValidFourPartDecimal(rule) || ipaddr.IPv6.isValid(rule));
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
