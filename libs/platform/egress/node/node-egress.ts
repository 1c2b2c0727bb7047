import http from 'node:http';
import https from 'node:https';
import { isIP, isIPv6 } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { Egress } from '@lore/platform/egress/port';
import type { Connector, Hop } from './http-exchange';
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
    // A fresh connection per request (a socket of a shared pool could be one opened to another
    // address), unless the request asks to keep it: then from a pool of its own vetted addresses.
    agent: hop.reuseConnection ? keptAliveAgent(hop) : false,
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

/** Pools of kept-alive sockets, one per origin and set of vetted addresses (at most this many pools). */
const MAX_POOLS = 32;
/** An idle kept-alive socket is closed after this long. */
const IDLE_SOCKET_MS = 15_000;
const pools = new Map<string, http.Agent>();

/**
 * The pool for a hop: keyed by its origin *and* the addresses vetting just returned, so a kept
 * socket only ever serves a request whose own vetting allowed the address it is connected to
 * (a host that resolves elsewhere gets a new pool, and the old one ages out).
 */
function keptAliveAgent(hop: Hop): http.Agent {
  const key = `${hop.url.protocol}//${hop.url.host}@${hop.addresses.join(',')}`;
  const existing = pools.get(key);
  if (existing !== undefined) {
    // Most recently used last, so the oldest pool is the one dropped.
    pools.delete(key);
    pools.set(key, existing);
    return existing;
  }
  const options = { keepAlive: true, maxFreeSockets: 8, timeout: IDLE_SOCKET_MS };
  const agent = hop.url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
  pools.set(key, agent);
  if (pools.size > MAX_POOLS) {
    const [oldest] = pools.keys();
    if (oldest !== undefined) {
      pools.get(oldest)?.destroy();
      pools.delete(oldest);
    }
  }
  return agent;
}
