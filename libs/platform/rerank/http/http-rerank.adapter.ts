import { setTimeout as sleep } from 'node:timers/promises';
import { EgressRefused, type Egress, type OutboundResponse } from '@lore/platform/egress/port';
import { isRetryableStatus, nextDelayMs, retryAfterMs, type RetryPolicy } from '@lore/platform/kernel';
import { RerankFailure, type RerankProvider, type RerankProviderInfo, type RerankScored } from '@lore/platform/rerank/port';
import { RERANK_WIRE_FORMATS, type RerankApi } from './rerank-wire-formats';

export interface HttpRerankOptions {
  readonly api: RerankApi;
  /** The API root the documented path is appended to (https://api.cohere.com, http://tei:8080). */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer`; TEI and vLLM usually run without one. */
  readonly apiKey?: string | undefined;
  /** The model a request naming none uses (TEI serves one model and ignores it). */
  readonly model: string;
  /** One attempt's deadline (connect, send, answer); a timed-out attempt is not repeated. */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
}

/**
 * A search waits for its reranker, so retries are few and short: two more attempts after a
 * 429/5xx or a lost connection, a server's Retry-After honoured up to 5 s (longer: fail now).
 */
export const RERANK_RETRY_POLICY: RetryPolicy = { maxRetries: 2, baseDelayMs: 200, maxDelayMs: 2_000, maxRetryAfterMs: 5_000 };
const DEFAULT_TIMEOUT_MS = 10_000;
/** A rerank answer is a list of numbers (Jina's may echo documents): generous, but bounded. */
const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

/**
 * One of the rerank APIs over Lore's egress (the operator's address rules and forward proxy
 * apply: a TEI or vLLM on a private address needs LORE_EGRESS_ALLOW). Its connection is kept
 * alive between calls (`reuseConnection`): a search waits for each call, and a new connection
 * per call was a round trip (and a wake-up of the process) too many.
 */
export class HttpRerankProvider implements RerankProvider {
  readonly info: RerankProviderInfo;
  private readonly policy: RetryPolicy;
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly abort = new AbortController();

  constructor(
    private readonly egress: Egress,
    private readonly options: HttpRerankOptions,
  ) {
    this.info = { provider: options.api, model: options.model };
    this.policy = { ...RERANK_RETRY_POLICY, ...options.retry };
    this.url = options.baseUrl.replace(/\/+$/, '') + RERANK_WIRE_FORMATS[options.api].path;
    this.headers = {
      'content-type': 'application/json',
      accept: 'application/json',
      ...(options.apiKey === undefined || options.apiKey === '' ? {} : { authorization: `Bearer ${options.apiKey}` }),
    };
  }

  async rerank(query: string, documents: readonly string[], options?: { readonly model?: string }): Promise<RerankScored[]> {
    if (documents.length === 0) return [];
    const format = RERANK_WIRE_FORMATS[this.options.api];
    const body = JSON.stringify(format.body(options?.model ?? this.options.model, query, documents));
    const timeoutMs = this.options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    for (let retry = 0; ; retry++) {
      let failure: RerankFailure;
      let serverWait: number | undefined;
      try {
        const response = await this.egress.request({ method: 'POST', url: this.url, headers: this.headers, body, timeoutMs, maxResponseBytes: MAX_RESPONSE_BYTES, maxRedirects: 0, reuseConnection: true });
        const parsed = parseJson(response);
        if (response.status >= 200 && response.status < 300) {
          if (parsed === undefined) throw this.failure('bad_response', 'sent a response that is not JSON');
          const scores = format.scores(parsed, documents.length);
          if (typeof scores === 'string') throw this.failure('bad_response', `sent a malformed response: ${scores}`);
          return scores;
        }
        const detail = parsed === undefined ? undefined : format.errorMessage(parsed);
        const answered = `answered ${response.status}${detail === undefined ? '' : `: ${detail.slice(0, 300)}`}`;
        if (!isRetryableStatus(response.status)) throw this.failure('refused', answered);
        failure = this.failure(response.status === 429 ? 'rate_limited' : 'server_error', answered);
        serverWait = retryAfterMs({ get: (name) => response.headers[name] ?? null });
      } catch (error) {
        if (error instanceof RerankFailure) throw error;
        if (!(error instanceof EgressRefused)) throw error;
        if (error.reason === 'timeout') throw this.failure('timeout', `did not answer within ${timeoutMs} ms`);
        if (error.reason !== 'unreachable') throw this.failure('refused', `cannot be called: ${error.message}`);
        failure = this.failure('network', `could not be reached (${error.message})`);
      }
      const delay = nextDelayMs(retry, this.policy, serverWait);
      if (delay === undefined) throw failure;
      try {
        await sleep(delay, undefined, { signal: this.abort.signal });
      } catch {
        throw failure;
      }
    }
  }

  async close(): Promise<void> {
    this.abort.abort();
  }

  private failure(reason: RerankFailure['reason'], detail: string): RerankFailure {
    return new RerankFailure(reason, this.options.api, detail);
  }
}

function parseJson(response: OutboundResponse): unknown {
  try {
    return JSON.parse(response.body) as unknown;
  } catch {
    return undefined;
  }
}
