import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import tls from 'node:tls';
import type { Egress } from '@lore/platform/egress/port';
import type { Connector } from './http-exchange';
import { openTunnel, parseProxyUrl } from './proxy-tunnel';
import type { EgressProxy } from './proxy-tunnel';
import { bareHost, effectivePort } from './url-rules';
import { createVettedEgress } from './vetted-egress';
import type { NodeEgressOptions } from './vetted-egress';

export interface ProxyEgressOptions extends NodeEgressOptions {
  /** The forward proxy all traffic leaves through: `http://[user:password@]host[:port]`. */
  readonly proxyUrl: string;
}

/**
 * Outbound HTTP for deployments whose traffic must leave through a forward proxy (an egress
 * gateway). Everything the direct adapter checks is still checked here, locally (URL rules,
 * DNS + address policy + allow list, same-host redirects, deadline, size cap): the proxy is a
 * second line, not the policy. The vetted address is then reached with CONNECT through the
 * proxy, and HTTP or TLS (SNI and certificate checks on the hostname) spoken over the tunnel.
 * A bad proxy URL or allow-list entry throws here, at startup.
 */
export function createProxyEgress(options: ProxyEgressOptions): Egress {
  const { proxyUrl, ...rest } = options;
  return createVettedEgress(rest, throughProxy(parseProxyUrl(proxyUrl)));
}

/**
 * Validates `LORE_EGRESS_PROXY`-style text at startup: undefined when blank (no proxy), else
 * the URL as given, trimmed. Throws a clear Error that does not repeat the URL (its password).
 */
export function parseEgressProxyUrl(text: string | undefined): string | undefined {
  const trimmed = (text ?? '').trim();
  if (trimmed === '') return undefined;
  parseProxyUrl(trimmed);
  return trimmed;
}

function throughProxy(proxy: EgressProxy): Connector {
  return (hop, signal) => ({
    // With createConnection and no agent, node:http uses this socket for this request only.
    createConnection: (_options, oncreate) => {
      openTunnel(proxy, hop.url, hop.addresses, effectivePort(hop.url), signal).then(
        (tunnel) => oncreate(null, hop.url.protocol === 'https:' ? secure(tunnel, bareHost(hop.url)) : tunnel),
        // node:http reads no socket with an error (its types want one all the same).
        (error: Error) => oncreate(error, undefined as never),
      );
      // The socket comes later, through oncreate.
      return undefined;
    },
  });
}

/** TLS over the tunnel, checked against the hostname the caller named (not the vetted address). */
function secure(tunnel: Socket, host: string): tls.TLSSocket {
  // SNI carries names only; for an IP literal, `host` is what the certificate is checked against.
  return tls.connect(isIP(host) === 0 ? { socket: tunnel, servername: host } : { socket: tunnel, host });
}
