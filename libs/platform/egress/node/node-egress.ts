import { isIP, isIPv6 } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Egress } from '@lore/platform/egress/port';
import type { Connector } from './http-exchange';
import { bareHost } from './url-rules';
import { createVettedEgress } from './vetted-egress';
import type { NodeEgressOptions } from './vetted-egress';

/**
 * Outbound HTTP straight from this process over node:http/https, refusing non-public addresses
 * unless allowed (see address-policy.ts). A bad allow-list entry throws here, at startup.
 */
export function createNodeEgress(options: NodeEgressOptions = {}): Egress {
  return createVettedEgress(options, direct);
}

/** Connects to the vetted addresses themselves; TLS still checks the hostname. */
const direct: Connector = (hop) => {
  const host = bareHost(hop.url);
  return {
    // A fresh connection per request: a pooled socket could be one opened to another address.
    agent: false,
    // The connection uses the vetted addresses, not a second DNS answer (DNS rebinding).
    lookup: pinnedLookup(hop.addresses),
    // Certificate checks and SNI stay on the hostname, not on the pinned address.
    ...(hop.url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
  };
};

/** A lookup that answers with the vetted addresses, in either of the shapes net asks for. */
function pinnedLookup(addresses: readonly string[]): LookupFunction {
  const entries = addresses.map((address) => ({ address, family: isIPv6(address) ? 6 : 4 }));
  return (_hostname, options, callback) => {
    const first = entries[0];
    if (options.all === true) callback(null, entries);
    else if (first) callback(null, first.address, first.family);
    else callback(Object.assign(new Error('no vetted address'), { code: 'ENOTFOUND' }), '', 0);
  };
}
