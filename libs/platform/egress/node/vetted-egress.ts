import type { Egress, OutboundMethod, OutboundRequest, OutboundResponse } from '@lore/platform/egress/port';
import { EgressRefused } from '@lore/platform/egress/port';
import { compileAllowList } from './address-policy';
import type { AllowList } from './address-policy';
import { REDIRECTS, exchange } from './http-exchange';
import type { Connector } from './http-exchange';
import { origin, redirectTarget, requestTarget } from './url-rules';
import { systemResolve, vet } from './vetting';
import type { EgressResolver } from './vetting';

/** What every Node egress adapter is configured with (the proxy adapter adds its URL). */
export interface NodeEgressOptions {
  /** Parsed `LORE_EGRESS_ALLOW` entries (see `parseEgressAllowList`): IPs, CIDRs, hostnames. */
  readonly allow?: readonly string[];
  readonly defaultTimeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly maxRedirects?: number;
  readonly userAgent?: string;
  /** Replaces dns.lookup (tests; a custom resolver). Whatever it returns is still vetted. */
  readonly resolve?: EgressResolver;
}

interface Config {
  readonly allow: AllowList;
  readonly timeoutMs: number;
  readonly maxResponseBytes: number;
  readonly maxRedirects: number;
  readonly userAgent: string;
  readonly resolve: EgressResolver;
  readonly connector: Connector;
}

/** Headers describing a body, dropped when a redirect turns the request into a body-less GET (fetch). */
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

/**
 * The one implementation of the port's rules (URL checks, address vetting, same-host
 * redirects, one deadline, a size cap); adapters differ only in the `connector` that opens a
 * socket to an already-vetted address. A bad option or allow-list entry throws here, at startup.
 */
export function createVettedEgress(options: NodeEgressOptions, connector: Connector): Egress {
  const config: Config = {
    allow: compileAllowList(options.allow ?? []),
    timeoutMs: positive('defaultTimeoutMs', options.defaultTimeoutMs, 10_000),
    maxResponseBytes: positive('maxResponseBytes', options.maxResponseBytes, 1024 * 1024),
    maxRedirects: count('maxRedirects', options.maxRedirects, 3),
    userAgent: options.userAgent ?? 'Lore',
    resolve: options.resolve ?? systemResolve,
    connector,
  };
  return { request: (request) => send(request, config) };
}

async function send(request: OutboundRequest, config: Config): Promise<OutboundResponse> {
  const started = Date.now();
  const timeoutMs = positive('timeoutMs', request.timeoutMs, config.timeoutMs);
  const maxBytes = positive('maxResponseBytes', request.maxResponseBytes, config.maxResponseBytes);
  const maxRedirects = count('maxRedirects', request.maxRedirects, config.maxRedirects);
  const deadline = started + timeoutMs;
  let url = requestTarget(request.url);
  let method: OutboundMethod = request.method;
  let body = request.body;
  let headers = request.headers ?? {};
  for (let redirects = 0; ; redirects++) {
    // Vetted again on every hop: a same-host redirect still resolves the name afresh.
    const addresses = await vet(url, config.allow, config.resolve, deadline, timeoutMs);
    const hop = { url, method, headers, body, addresses, deadline, timeoutMs, maxBytes, userAgent: config.userAgent, reuseConnection: request.reuseConnection === true };
    const result = await exchange(hop, config.connector);
    const location = result.headers['location'];
    if (!REDIRECTS.has(result.status) || location === undefined) {
      return { status: result.status, headers: result.headers, body: result.body, url: url.href, elapsedMs: Date.now() - started };
    }
    const next = redirectTarget(url, location);
    if (redirects >= maxRedirects) {
      const limit = maxRedirects === 0 ? 'redirected, and redirects are not followed for this request' : `redirected more than ${maxRedirects} times`;
      throw new EgressRefused('too_many_redirects', `refused: ${origin(url)} ${limit}`);
    }
    // Fetch semantics: 303 (and 301/302 after a POST) continue as a GET without the body.
    if ((result.status === 303 && method !== 'HEAD') || ((result.status === 301 || result.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
      headers = Object.fromEntries(Object.entries(headers).filter(([name]) => !BODY_HEADERS.has(name.toLowerCase())));
    }
    url = next;
  }
}

function positive(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) throw new TypeError(`egress: ${name} must be a positive number`);
  return value;
}

function count(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 0) throw new TypeError(`egress: ${name} must be a whole number, 0 or more`);
  return value;
}
