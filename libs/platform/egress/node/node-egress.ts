import { promises as dns } from 'node:dns';
import { isIP } from 'node:net';
import type { Egress, OutboundMethod, OutboundRequest, OutboundResponse } from '@lore/platform/egress/port';
import { EgressRefused } from '@lore/platform/egress/port';
import { addressRange, compileAllowList, describeRange, firstBlockedAddress, normalizeHost } from './address-policy';
import type { AllowList } from './address-policy';
import { REDIRECTS, bareHost, effectivePort, exchange, origin } from './http-exchange';

/** Resolves a hostname to every address it has (dns.lookup semantics: /etc/hosts included). */
export type EgressResolver = (hostname: string) => Promise<ReadonlyArray<{ readonly address: string }>>;

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
}

/** Headers describing a body, dropped when a redirect turns the request into a body-less GET (fetch). */
const BODY_HEADERS = new Set(['content-type', 'content-encoding', 'content-language', 'content-location']);

const systemResolve: EgressResolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Outbound HTTP over node:http/https that refuses to reach non-public addresses unless allowed
 * (see address-policy.ts). A bad allow-list entry throws here, at startup.
 */
export function createNodeEgress(options: NodeEgressOptions = {}): Egress {
  const config: Config = {
    allow: compileAllowList(options.allow ?? []),
    timeoutMs: positive('defaultTimeoutMs', options.defaultTimeoutMs, 10_000),
    maxResponseBytes: positive('maxResponseBytes', options.maxResponseBytes, 1024 * 1024),
    maxRedirects: count('maxRedirects', options.maxRedirects, 3),
    userAgent: options.userAgent ?? 'Lore',
    resolve: options.resolve ?? systemResolve,
  };
  return { request: (request) => send(request, config) };
}

async function send(request: OutboundRequest, config: Config): Promise<OutboundResponse> {
  const started = Date.now();
  const timeoutMs = positive('timeoutMs', request.timeoutMs, config.timeoutMs);
  const maxBytes = positive('maxResponseBytes', request.maxResponseBytes, config.maxResponseBytes);
  const maxRedirects = count('maxRedirects', request.maxRedirects, config.maxRedirects);
  const deadline = started + timeoutMs;
  let url = target(request.url);
  let method: OutboundMethod = request.method;
  let body = request.body;
  let headers = request.headers ?? {};
  for (let redirects = 0; ; redirects++) {
    const addresses = await vet(url, config, deadline, timeoutMs);
    const result = await exchange({ url, method, headers, body, addresses, deadline, timeoutMs, maxBytes, userAgent: config.userAgent });
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

/** Parses and checks the URL; the raw string is never echoed (its query may hold a token). */
function target(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new EgressRefused('invalid_url', 'refused: the URL is not a valid absolute URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new EgressRefused('invalid_url', `refused: only http and https URLs are allowed, not ${url.protocol}`);
  }
  if (url.username !== '' || url.password !== '') {
    throw new EgressRefused('invalid_url', `refused: ${origin(url)} has credentials in the URL (user:pass@); send them in a header instead`);
  }
  url.hash = '';
  return url;
}

/** Where a 3xx may lead: http(s), same hostname and port, never https down to http. */
export function redirectTarget(from: URL, location: string): URL {
  let next: URL;
  try {
    next = new URL(location, from);
  } catch {
    throw new EgressRefused('invalid_url', `refused: ${origin(from)} redirected to an invalid URL`);
  }
  if (next.protocol !== 'http:' && next.protocol !== 'https:') {
    throw new EgressRefused('invalid_url', `refused: ${origin(from)} redirected to a ${next.protocol} URL; only http and https are followed`);
  }
  if (next.username !== '' || next.password !== '') {
    throw new EgressRefused('invalid_url', `refused: ${origin(from)} redirected to a URL with credentials in it (user:pass@)`);
  }
  next.hash = '';
  if (from.protocol === 'https:' && next.protocol === 'http:') {
    throw new EgressRefused('cross_host_redirect', `refused: ${origin(from)} redirected to ${origin(next)}, from https down to plain http`);
  }
  // Same host means same hostname and port: headers (credentials) then only ever go where the caller sent them.
  if (normalizeHost(next.hostname) !== normalizeHost(from.hostname) || effectivePort(next) !== effectivePort(from)) {
    throw new EgressRefused(
      'cross_host_redirect',
      `refused: ${origin(from)} redirected to another host, ${origin(next)}; only same-host redirects are followed (use that URL directly if it is the right one)`,
    );
  }
  return next;
}

/** Every address the host has, all checked against the policy: the connection is pinned to these. */
async function vet(url: URL, config: Config, deadline: number, timeoutMs: number): Promise<string[]> {
  const host = bareHost(url);
  const literal = isIP(host) !== 0;
  const addresses = literal ? [host] : (await resolveBefore(host, config.resolve, deadline, timeoutMs, url)).map((a) => a.address);
  if (addresses.length === 0) throw new EgressRefused('unreachable', `could not resolve ${host} (no addresses)`);
  const blocked = firstBlockedAddress(host, addresses, config.allow);
  if (blocked !== undefined) {
    const what = `${describeRange(addressRange(blocked))} address`;
    const subject = literal ? `${host} is ${what}` : `${host} resolves to ${blocked}, ${what}`;
    throw new EgressRefused('blocked_address', `refused: ${subject}; allow it with LORE_EGRESS_ALLOW`);
  }
  return addresses;
}

async function resolveBefore(host: string, resolve: EgressResolver, deadline: number, timeoutMs: number, url: URL) {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EgressRefused('timeout', `timed out: ${url.hostname} could not be resolved within ${timeoutMs} ms`)), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([resolve(host), expired]);
  } catch (error) {
    if (error instanceof EgressRefused) throw error;
    const code = (error as NodeJS.ErrnoException | undefined)?.code ?? 'lookup failed';
    throw new EgressRefused('unreachable', `could not resolve ${host} (${code})`);
  } finally {
    clearTimeout(timer);
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
