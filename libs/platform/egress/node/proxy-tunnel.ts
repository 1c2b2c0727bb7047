import http from 'node:http';
import { isIPv6 } from 'node:net';
import type { Socket } from 'node:net';
import { EgressRefused } from '@lore/platform/egress/port';
import { errorCode } from './http-exchange';
import { hostPort } from './url-rules';

/** A forward proxy reached with HTTP CONNECT (Smokescreen, Squid, …), as `parseProxyUrl` reads it. */
export interface EgressProxy {
  readonly host: string;
  readonly port: number;
  /** `Basic …` from the URL's user:pass@, sent on every CONNECT; never shown in a message. */
  readonly authorization: string | undefined;
  /** host:port, what messages call the proxy (the URL without its credentials). */
  readonly name: string;
}

/**
 * Reads an operator's proxy URL, `http://[user:password@]host[:port]`. Throws a message that
 * does not repeat the URL: it may hold the proxy's password.
 */
export function parseProxyUrl(text: string): EgressProxy {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw new Error('LORE_EGRESS_PROXY: not a valid URL; expected http://[user:password@]host[:port]');
  }
  // CONNECT is spoken to the proxy in plain HTTP (what Smokescreen and Squid listen for); the
  // tunnel it opens carries the target's TLS end to end.
  if (url.protocol !== 'http:') {
    // Named only when it is a scheme: in `user:pass@host` (http:// forgotten), "user:" parses as one.
    const scheme = /^(https|socks[45]?h?):$/.test(url.protocol) ? `, not ${url.protocol}//` : '';
    throw new Error(`LORE_EGRESS_PROXY: only http:// proxy URLs are supported${scheme}; expected http://[user:password@]host[:port]`);
  }
  if (url.hostname === '') throw new Error('LORE_EGRESS_PROXY: the URL names no host');
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const port = url.port === '' ? 80 : Number(url.port);
  const credentials = url.username === '' && url.password === '' ? undefined : decodedCredentials(url);
  return {
    host,
    port,
    authorization: credentials === undefined ? undefined : `Basic ${Buffer.from(credentials).toString('base64')}`,
    name: `${url.hostname}:${port}`,
  };
}

/** user:password as the proxy expects them in Basic, from the URL's percent-encoded form. */
function decodedCredentials(url: URL): string {
  try {
    return `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  } catch {
    throw new Error('LORE_EGRESS_PROXY: the user:password in the URL is not valid percent-encoding (write @ as %40, : as %3A)');
  }
}

/**
 * Opens a tunnel through the proxy to one of the vetted addresses, never to the hostname, so
 * the proxy's own DNS cannot be steered elsewhere (rebinding). Addresses are tried in order
 * while the proxy answers 5xx (it could not reach that one); a 4xx is the proxy's policy
 * (403 forbidden, 407 credentials) and is final.
 */
export async function openTunnel(proxy: EgressProxy, url: URL, addresses: readonly string[], port: number, signal: AbortSignal): Promise<Socket> {
  let status = 0;
  for (const address of addresses) {
    const outcome = await connect(proxy, isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`, signal);
    if (typeof outcome !== 'number') return outcome;
    status = outcome;
    if (status < 500) {
      const why = status === 407 ? ': its credentials (user:password in LORE_EGRESS_PROXY) are missing or not accepted' : '';
      throw new EgressRefused('unreachable', `the egress proxy refused to connect to ${hostPort(url)} (${status})${why}`);
    }
  }
  throw new EgressRefused('unreachable', `could not reach ${hostPort(url)} through the egress proxy (${status})`);
}

/** One CONNECT: the tunnel's socket on a 2xx, else the proxy's status. */
function connect(proxy: EgressProxy, authority: string, signal: AbortSignal): Promise<Socket | number> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host: authority };
    if (proxy.authorization !== undefined) headers['proxy-authorization'] = proxy.authorization;
    // agent: false, so each tunnel is a connection of its own; `signal` drops a CONNECT still
    // pending when the exchange has ended (its deadline passed).
    const req = http.request({ host: proxy.host, port: proxy.port, method: 'CONNECT', path: authority, headers, agent: false, signal });
    req.on('connect', (res: http.IncomingMessage, socket: Socket, head: Buffer) => {
      const status = res.statusCode ?? 0;
      if (status < 200 || status > 299) {
        socket.destroy();
        return resolve(status);
      }
      // Bytes the target sent along with the proxy's answer belong to the tunnel's stream.
      if (head.length > 0) socket.unshift(head);
      resolve(socket);
    });
    // Names the proxy, never its URL (credentials); after an abort nobody waits for this.
    req.on('error', (error) => reject(new EgressRefused('unreachable', `could not reach the egress proxy ${proxy.name} (${errorCode(error)})`)));
    req.end();
  });
}
