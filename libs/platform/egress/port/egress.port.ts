/**
 * Outbound HTTP to addresses a user typed in (third-party API base URLs, later webhook
 * targets). Because the user picks the URL, every adapter must refuse to become a proxy into
 * the deployment's own network (SSRF): it vets the addresses a host resolves to, pins the
 * connection to the vetted address, follows redirects only to the same host, and bounds time
 * and response size. What an operator may reach beyond the public internet is configured on
 * the adapter (`LORE_EGRESS_ALLOW`), never per request.
 *
 * Any HTTP status is a response, not a failure: callers judge 401 or 500 themselves. Only the
 * refusals below reject, always as `EgressRefused`.
 */

export type OutboundMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD';

export interface OutboundRequest {
  readonly method: OutboundMethod;
  /** Absolute http: or https: URL, without userinfo. */
  readonly url: string;
  /** Sent as given (they may carry secrets: they never appear in an error message). */
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  /** One deadline for the whole exchange: DNS, connect, TLS, redirects, headers and body. */
  readonly timeoutMs?: number;
  /** Longest response body accepted, in bytes. */
  readonly maxResponseBytes?: number;
  /** Same-host redirects followed at most (0: none is followed, the 3xx is refused). */
  readonly maxRedirects?: number;
  /**
   * Keep the connection open for the next request to the same host and the same vetted
   * addresses (direct egress only; a proxy's tunnel is never kept). For services an operator
   * configured and calls on every search (rerank APIs), where a new connection per call is a
   * round trip too many; user-given URLs (webhooks, connection tests) do not ask for it.
   */
  readonly reuseConnection?: boolean;
}

export interface OutboundResponse {
  readonly status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** The body decoded as UTF-8 (empty for HEAD). */
  readonly body: string;
  /** Final URL after same-host redirects. */
  readonly url: string;
  readonly elapsedMs: number;
}

export interface Egress {
  request(request: OutboundRequest): Promise<OutboundResponse>;
}

export type EgressRefusalReason =
  | 'invalid_url'
  | 'blocked_address'
  | 'cross_host_redirect'
  | 'too_many_redirects'
  | 'timeout'
  | 'response_too_large'
  | 'unreachable';

/**
 * Why a request was not (completely) made. The message is meant for the end user who entered
 * the URL: it names the host and what to do, and never contains request headers, the body or
 * a query string, which is where credentials travel.
 */
export class EgressRefused extends Error {
  constructor(
    readonly reason: EgressRefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'EgressRefused';
  }
}
