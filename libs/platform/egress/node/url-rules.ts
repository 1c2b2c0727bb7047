import { EgressRefused } from '@lore/platform/egress/port';
import { normalizeHost } from './address-policy';

/**
 * Which URLs a request may start at and which redirects it may follow, shared by every way of
 * connecting (direct, through a proxy). Messages show only `origin()`: the raw URL is never
 * echoed, because its query may hold a token.
 */

/** Parses and checks the URL a caller asked for. */
export function requestTarget(raw: string): URL {
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
