import http from 'node:http';
import https from 'node:https';
import { isIP, isIPv6 } from 'node:net';
import type { LookupFunction } from 'node:net';
import type { OutboundMethod } from '@lore/platform/egress/port';
import { EgressRefused } from '@lore/platform/egress/port';

/** One request/response over a connection pinned to already-vetted addresses. */
export interface Hop {
  readonly url: URL;
  readonly method: OutboundMethod;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | undefined;
  /** Vetted addresses of url's host: the socket may connect to these and nothing else. */
  readonly addresses: readonly string[];
  readonly deadline: number;
  readonly timeoutMs: number;
  readonly maxBytes: number;
  readonly userAgent: string;
}

export interface HopResult {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/** Statuses followed when they carry a Location. */
export const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one request. A 3xx with a Location resolves at once with an empty body (its body is
 * never read); anything else is read whole, up to maxBytes. The one timer runs to the
 * overall deadline and destroys the socket wherever the exchange is (connect, TLS, headers,
 * a body that drips in byte by byte).
 */
export function exchange(hop: Hop): Promise<HopResult> {
  const { url } = hop;
  const host = bareHost(url);
  return new Promise<HopResult>((resolve, reject) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    const timer = setTimeout(
      () => fail(new EgressRefused('timeout', `timed out: no complete response from ${origin(url)} within ${hop.timeoutMs} ms`)),
      Math.max(0, hop.deadline - Date.now()),
    );
    function fail(error: EgressRefused): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req?.destroy();
      reject(error);
    }
    function done(result: HopResult): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    }
    const options: https.RequestOptions = {
      hostname: host,
      port: url.port === '' ? undefined : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: hop.method,
      headers: requestHeaders(hop.headers, hop.body, hop.userAgent),
      // A fresh connection per request: a pooled socket could be one opened to another address.
      agent: false,
      // The connection uses the vetted addresses, not a second DNS answer (DNS rebinding).
      lookup: pinnedLookup(hop.addresses),
      // Certificate checks and SNI stay on the hostname, not on the pinned address.
      ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
    };
    try {
      // node:http reads no proxy variables (HTTP_PROXY…), so nothing routes around the pin.
      req = (url.protocol === 'https:' ? https : http).request(options);
    } catch (error) {
      // Node's own message may quote a header value; name only the error code.
      clearTimeout(timer);
      reject(new TypeError(`egress: the request could not be built (${errorCode(error)})`));
      return;
    }
    req.on('error', (error) => fail(unreachable(url, error)));
    req.on('response', (res) => {
      res.on('error', (error) => fail(unreachable(url, error)));
      // Closed before 'end' (after 'end', done() has settled and this is a no-op).
      res.on('close', () => fail(unreachable(url, { code: 'ECONNRESET' })));
      const headers = flatten(res.headers);
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && headers['location'] !== undefined) {
        done({ status, headers, body: '' });
        req?.destroy();
        return;
      }
      const declared = Number(headers['content-length']);
      if (Number.isFinite(declared) && declared > hop.maxBytes) return fail(tooLarge(url, hop.maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > hop.maxBytes) return fail(tooLarge(url, hop.maxBytes));
        chunks.push(chunk);
      });
      res.on('end', () => done({ status, headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.end(hop.body);
  });
}

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

function requestHeaders(given: Readonly<Record<string, string>>, body: string | undefined, userAgent: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(given)) {
    // Host is derived from the URL (it must agree with the vetted host and SNI); framing is ours.
    if (['host', 'content-length', 'transfer-encoding', 'connection'].includes(name.toLowerCase())) continue;
    headers[name] = value;
  }
  if (!Object.keys(headers).some((name) => name.toLowerCase() === 'user-agent')) headers['user-agent'] = userAgent;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return headers;
}

function flatten(headers: http.IncomingHttpHeaders): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

function unreachable(url: URL, error: unknown): EgressRefused {
  const code = errorCode(error);
  // Only the code: messages of TLS and socket errors are Node's, and we promise ours.
  const tls = /CERT|TLS|SSL|EPROTO/.test(code) ? '; its TLS certificate or handshake was not accepted' : '';
  return new EgressRefused('unreachable', `could not reach ${hostPort(url)} (${code})${tls}`);
}

function tooLarge(url: URL, maxBytes: number): EgressRefused {
  return new EgressRefused('response_too_large', `refused: the response from ${origin(url)} is larger than ${maxBytes} bytes`);
}

function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : 'connection failed';
}

/** URL.hostname keeps IPv6 literals in brackets; sockets and policies want the bare address. */
export function bareHost(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** scheme://host[:port] — what messages show of a URL (no path, query or userinfo). */
export function origin(url: URL): string {
  return `${url.protocol}//${url.host}`;
}

/** host:port with the scheme's default port made explicit. */
export function hostPort(url: URL): string {
  return `${url.hostname}:${effectivePort(url)}`;
}

export function effectivePort(url: URL): number {
  if (url.port !== '') return Number(url.port);
  return url.protocol === 'https:' ? 443 : 80;
}
