import http from 'node:http';
import https from 'node:https';
import type { OutboundMethod } from '@lore/platform/egress/port';
import { EgressRefused } from '@lore/platform/egress/port';
import { bareHost, hostPort, origin } from './url-rules';

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
  /** The request's `reuseConnection`: a connector may take a kept-alive socket to these same addresses. */
  readonly reuseConnection: boolean;
}

export interface HopResult {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * How a hop's socket reaches the vetted addresses, as the request options that open it: a
 * pinned lookup (direct), or a `createConnection` through a tunnel (proxy). `signal` aborts
 * when the exchange ends early (deadline, cap, failure), so anything the connector started
 * (a pending CONNECT) stops with it. A connector may fail with its own EgressRefused.
 */
export type Connector = (hop: Hop, signal: AbortSignal) => https.RequestOptions;

/** Statuses followed when they carry a Location. */
export const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

/**
 * Sends one request. A 3xx with a Location resolves at once with an empty body (its body is
 * never read); anything else is read whole, up to maxBytes. The one timer runs to the
 * overall deadline and destroys the socket wherever the exchange is (connect, TLS, headers,
 * a body that drips in byte by byte).
 */
export function exchange(hop: Hop, connector: Connector): Promise<HopResult> {
  const { url } = hop;
  return new Promise<HopResult>((resolve, reject) => {
    let settled = false;
    let req: http.ClientRequest | undefined;
    const aborted = new AbortController();
    const timer = setTimeout(
      () => fail(new EgressRefused('timeout', `timed out: no complete response from ${origin(url)} within ${hop.timeoutMs} ms`)),
      Math.max(0, hop.deadline - Date.now()),
    );
    function fail(error: EgressRefused): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      aborted.abort();
      req?.destroy();
      reject(error);
    }
    function done(result: HopResult): void {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    }
    try {
      const options: https.RequestOptions = {
        hostname: bareHost(url),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: hop.method,
        headers: requestHeaders(hop.headers, hop.body, hop.userAgent),
        // Each connector opens a fresh socket per hop: a pooled one could lead to another address.
        ...connector(hop, aborted.signal),
      };
      // node:http reads no proxy variables (HTTP_PROXY…), so nothing routes around the connector.
      req = (url.protocol === 'https:' ? https : http).request(options);
    } catch (error) {
      // Node's own message may quote a header value; name only the error code.
      clearTimeout(timer);
      aborted.abort();
      reject(new TypeError(`egress: the request could not be built (${errorCode(error)})`));
      return;
    }
    // A connector's own refusal (say, a proxy that refused the tunnel) is passed on as it is.
    req.on('error', (error) => fail(error instanceof EgressRefused ? error : unreachable(url, error)));
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

/** A Node error's code when it looks like one (never its message, which may quote a header value). */
export function errorCode(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && /^[A-Z0-9_]+$/.test(code) ? code : 'connection failed';
}
