import createClient, { type Client } from 'openapi-fetch';
import type { paths } from '../generated/openapi';
import { LoreApiError, retryAfterSeconds } from './errors';
import { DEFAULT_RETRY_POLICY, retryingFetch, type FetchFn, type RetryPolicy } from './retry';

export interface LoreClientOptions {
  /** Where Lore answers, e.g. `http://localhost:8080` (without `/api/v1`). */
  readonly baseUrl: string;
  /** An API key (`lore_…`) or a JWT: sent as `Authorization: Bearer`. */
  readonly token: string;
  /** `X-Workspace-Id`: another workspace the credential may use (absent: its own). */
  readonly workspaceId?: string;
  /** Another fetch (a proxy agent, a test server's inject); the global fetch by default. */
  readonly fetch?: (request: Request) => Promise<Response>;
  readonly retry?: Partial<RetryPolicy>;
  /** Extra headers on every request. */
  readonly headers?: Record<string, string>;
}

/** What the resource classes share: the generated-types client and the two retry behaviours. */
export class LoreHttp {
  /** Every operation of `/openapi.json`, typed by path and method (openapi-fetch). */
  readonly api: Client<paths>;
  /** For requests safe to repeat after a 503 or a network failure. */
  readonly idempotent: FetchFn;
  readonly baseUrl: string;
  readonly headers: Record<string, string>;
  readonly retryPolicy: RetryPolicy;
  private readonly baseFetch: (request: Request) => Promise<Response>;

  constructor(options: LoreClientOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.retryPolicy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    // Read at call time, so that a fetch replaced after construction (tests, polyfills) is used.
    this.baseFetch = options.fetch ?? ((request) => globalThis.fetch(request));
    this.headers = {
      ...options.headers,
      authorization: `Bearer ${options.token}`,
      ...(options.workspaceId === undefined ? {} : { 'x-workspace-id': options.workspaceId }),
    };
    const onlyRateLimits = retryingFetch(this.baseFetch, this.retryPolicy, false);
    this.idempotent = retryingFetch(this.baseFetch, this.retryPolicy, true);
    // GET and HEAD are safe to repeat; other methods repeat only after a 429 unless a resource says otherwise.
    const byMethod: FetchFn = (request) => (request.method === 'GET' || request.method === 'HEAD' ? this.idempotent(request) : onlyRateLimits(request));
    this.api = createClient<paths>({ baseUrl: this.baseUrl, headers: this.headers, fetch: byMethod });
  }

  /** The fetch a stream uses for each connection: its own reconnection logic replaces the retries. */
  fetchOnce(request: Request): Promise<Response> {
    return this.baseFetch(request);
  }
}

/** What openapi-fetch resolves to. */
interface FetchResult<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/** The body of a 2xx answer, or the API's error as a {@link LoreApiError}. */
export async function unwrap<T>(pending: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await pending;
  if (response.ok) return data as T;
  const detail = typeof error === 'object' && error !== null && 'detail' in error ? (error.detail as LoreApiError['detail']) : typeof error === 'string' && error !== '' ? error : response.statusText;
  return Promise.reject(new LoreApiError(response.status, detail, response.headers.get('x-request-id') ?? undefined, retryAfterSeconds(response.headers)));
}
