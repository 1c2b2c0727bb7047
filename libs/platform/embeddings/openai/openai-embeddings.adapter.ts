import { setTimeout as sleep } from 'node:timers/promises';
import { AppError, invalid } from '@lore/platform/kernel';
import { EmbeddingBatcher, EmbeddingUnavailableError, l2Normalize } from '@lore/platform/embeddings/port';
import type { EmbeddingProvider, EmbeddingProviderInfo, EmbeddingUnavailableReason, Tokenization } from '@lore/platform/embeddings/port';
import { approximateTokenize, truncateApproximately } from './approximate-tokenizer';
import { DEFAULT_RETRY_POLICY, isRetryableStatus, nextDelayMs, retryAfterMs, type RetryPolicy } from '@lore/platform/egress/port';

export interface OpenAIEmbeddingOptions {
  /**
   * The API root; requests go to `<baseUrl>/embeddings`. OpenAI `https://api.openai.com/v1`,
   * Ollama `http://localhost:11434/v1`, vLLM `http://localhost:8000/v1`, TEI
   * `http://localhost:8080/v1`, LM Studio `http://localhost:1234/v1`; Azure OpenAI
   * `https://<resource>.openai.azure.com/openai/deployments/<deployment>` with `azure.apiVersion`,
   * or its v1 API `https://<resource>.openai.azure.com/openai/v1` with `azure: {}`.
   */
  readonly baseUrl: string;
  /** Sent as `Authorization: Bearer …`, or as `api-key: …` for Azure; omitted when unset (local servers). */
  readonly apiKey?: string | undefined;
  /** The `model` field (Azure deployment URLs ignore it, but it names the model in `info`). */
  readonly model: string;
  /** Length of the vectors the model returns; every response is checked against it. */
  readonly dimensions: number;
  /**
   * Also send `dimensions` in the request, for models that can shorten their vectors
   * (OpenAI text-embedding-3-*, Matryoshka models on vLLM). Off by default: servers whose
   * model cannot, reject the field.
   */
  readonly requestDimensions?: boolean;
  /** Azure OpenAI: the key goes in an `api-key` header, and `?api-version=` is added when given. */
  readonly azure?: { readonly apiVersion?: string | undefined };
  /** Extra headers (e.g. `OpenAI-Organization`, a proxy's own auth). */
  readonly headers?: Readonly<Record<string, string>>;
  /** Most inputs per request (default 32: TEI's default client batch limit; OpenAI allows 2048). */
  readonly maxInputsPerRequest?: number;
  /** Most requests in flight (default 4). */
  readonly maxConcurrentRequests?: number;
  /** Texts are cut to this many (estimated) tokens before sending (default 8191, OpenAI's limit). */
  readonly maxInputTokens?: number;
  /** Letters per estimated token (default 3: over-counts English; see `approximateTokenize`). */
  readonly charsPerToken?: number;
  /** Per attempt, body included (default 30 s). */
  readonly timeoutMs?: number;
  readonly retry?: Partial<RetryPolicy>;
  /** `float` (default, every server) or `base64` (smaller responses; OpenAI, TEI, vLLM). */
  readonly encodingFormat?: 'float' | 'base64';
  /** The fetch to use (default: Node's global fetch). */
  readonly fetch?: typeof fetch;
}

interface EmbeddingResponseItem {
  readonly index?: unknown;
  readonly embedding?: unknown;
}

/**
 * An OpenAI-compatible `/v1/embeddings` server. Concurrent callers' texts are batched into
 * requests of up to `maxInputsPerRequest`; 429, 5xx, network errors and timeouts are retried
 * with exponential backoff and full jitter, honouring `Retry-After` / `retry-after-ms`; what is
 * still failing after the retries is `unavailable`. A request the server refuses for good is
 * `validation` (400/413/422) or `internal` (401/403/404, a malformed answer), with the server's
 * message and never the API key. Texts are cut to `maxInputTokens` estimated tokens first,
 * since OpenAI rejects longer inputs rather than truncating them. Vectors are re-normalised
 * (not every server normalises).
 */
export class OpenAICompatibleEmbeddingProvider implements EmbeddingProvider {
  readonly info: EmbeddingProviderInfo;
  private readonly url: string;
  private readonly headers: Record<string, string>;
  private readonly policy: RetryPolicy;
  private readonly batcher: EmbeddingBatcher;
  private readonly abort = new AbortController();
  private readonly fetch: typeof fetch;
  private closed = false;

  constructor(private readonly options: OpenAIEmbeddingOptions) {
    if (!Number.isInteger(options.dimensions) || options.dimensions < 1) {
      throw new AppError('internal', `embedding dimensions must be a positive integer, got ${options.dimensions}`);
    }
    const base = new URL(options.baseUrl.replace(/\/+$/, '') + '/embeddings');
    const apiVersion = options.azure?.apiVersion;
    if (apiVersion !== undefined) base.searchParams.set('api-version', apiVersion);
    this.url = base.toString();
    this.headers = { 'content-type': 'application/json', accept: 'application/json', ...options.headers };
    if (options.apiKey !== undefined && options.apiKey !== '') {
      if (options.azure) this.headers['api-key'] = options.apiKey;
      else this.headers.authorization = `Bearer ${options.apiKey}`;
    }
    this.policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    this.fetch = options.fetch ?? fetch;
    this.info = {
      provider: 'openai-compatible',
      model: options.model,
      dimensions: options.dimensions,
      distance: 'cosine',
      maxInputTokens: options.maxInputTokens ?? 8191,
      tokenizer: 'approximate',
    };
    this.batcher = new EmbeddingBatcher({
      maxBatchSize: options.maxInputsPerRequest ?? 32,
      maxConcurrency: options.maxConcurrentRequests ?? 4,
      embed: (texts) => this.embedBatch(texts),
    });
  }

  embedDocuments(texts: readonly string[]): Promise<Float32Array[]> {
    return this.batcher.submit(texts, 'documents');
  }

  embedQuery(text: string): Promise<Float32Array> {
    return this.batcher.submitQuery(text);
  }

  async tokenize(texts: readonly string[]): Promise<Tokenization[]> {
    return texts.map((text) => approximateTokenize(text, this.options.charsPerToken));
  }

  async countTokens(texts: readonly string[]): Promise<number[]> {
    return texts.map((text) => approximateTokenize(text, this.options.charsPerToken).count);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.batcher.close(this.closedError());
    this.abort.abort();
  }

  private async embedBatch(texts: readonly string[]): Promise<Float32Array[]> {
    const input = texts.map((text) => {
      const cut = truncateApproximately(text, this.info.maxInputTokens, this.options.charsPerToken);
      // OpenAI rejects an empty string; a space embeds as "nothing".
      return cut === '' ? ' ' : cut;
    });
    const body = JSON.stringify({
      model: this.options.model,
      input,
      encoding_format: this.options.encodingFormat ?? 'float',
      ...(this.options.requestDimensions === true ? { dimensions: this.options.dimensions } : {}),
    });

    for (let retry = 0; ; retry++) {
      if (this.closed) throw this.closedError();
      let failure: EmbeddingUnavailableError;
      let serverWait: number | undefined;
      try {
        const response = await this.fetch(this.url, {
          method: 'POST',
          headers: this.headers,
          body,
          signal: AbortSignal.any([this.abort.signal, AbortSignal.timeout(this.options.timeoutMs ?? 30_000)]),
        });
        if (response.ok) return this.parse(await response.json(), texts.length);
        const detail = this.providerMessage(await response.text().catch(() => ''));
        if (!isRetryableStatus(response.status)) throw this.refused(response.status, detail);
        const reason: EmbeddingUnavailableReason = response.status === 429 ? 'rate_limited' : 'server_error';
        failure = this.unavailable(reason, `answered ${response.status}${detail ? `: ${detail}` : ''}`);
        serverWait = retryAfterMs(response.headers);
      } catch (error) {
        if (error instanceof AppError) throw error;
        if (this.closed) throw this.closedError();
        // By name, not instanceof: fetch's errors may come from another realm (jest's sandbox).
        const name = (error as { name?: unknown } | null)?.name;
        failure =
          name === 'TimeoutError'
            ? this.unavailable('timeout', `did not answer within ${this.options.timeoutMs ?? 30_000} ms`)
            : name === 'SyntaxError'
              ? this.unavailable('server_error', 'sent a response that is not JSON')
              : this.unavailable('network', `could not be reached (${networkCause(error)})`);
      }
      const delay = nextDelayMs(retry, this.policy, serverWait);
      if (delay === undefined) throw failure;
      try {
        await sleep(delay, undefined, { signal: this.abort.signal });
      } catch {
        throw this.closedError();
      }
    }
  }

  private parse(body: unknown, count: number): Float32Array[] {
    const data = (body as { data?: unknown } | null)?.data;
    if (!Array.isArray(data)) throw this.malformed('no `data` array');
    if (data.length !== count) throw this.malformed(`${data.length} embeddings for ${count} inputs`);
    const vectors = new Array<Float32Array | undefined>(count);
    data.forEach((raw: EmbeddingResponseItem, position) => {
      const index = raw?.index === undefined ? position : raw.index;
      if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || vectors[index]) {
        throw this.malformed(`bad or repeated index ${JSON.stringify(index) ?? 'undefined'}`);
      }
      const vector = this.decode(raw.embedding);
      if (vector.length !== this.info.dimensions) {
        throw new AppError(
          'internal',
          `The embedding provider returned ${vector.length}-dimensional vectors for model ${this.options.model}, ` +
            `but ${this.info.dimensions} are configured.`,
        );
      }
      vectors[index] = l2Normalize(vector);
    });
    return vectors as Float32Array[];
  }

  private decode(embedding: unknown): Float32Array {
    if (typeof embedding === 'string') {
      const bytes = Buffer.from(embedding, 'base64');
      if (bytes.byteLength % 4 !== 0) throw this.malformed('a base64 embedding is not a whole number of float32s');
      const vector = new Float32Array(bytes.byteLength / 4);
      for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
      return vector;
    }
    if (Array.isArray(embedding) && embedding.every((x) => typeof x === 'number' && Number.isFinite(x))) {
      return Float32Array.from(embedding as number[]);
    }
    throw this.malformed('an embedding is neither a list of numbers nor base64');
  }

  private refused(status: number, detail: string): AppError {
    const what = `The embedding provider at ${this.where()} refused the request (${status})${detail ? `: ${detail}` : ''}`;
    if (status === 400 || status === 413 || status === 422) return invalid(['input'], what);
    if (status === 401 || status === 403) return new AppError('internal', `${what}. Check the API key.`);
    if (status === 404) return new AppError('internal', `${what}. Check the base URL and the model name.`);
    return new AppError('internal', what);
  }

  private unavailable(reason: EmbeddingUnavailableReason, what: string): EmbeddingUnavailableError {
    return new EmbeddingUnavailableError(reason, `The embedding provider at ${this.where()} ${what}.`);
  }

  private malformed(what: string): AppError {
    return new AppError('internal', `The embedding provider at ${this.where()} sent an unexpected response: ${what}.`);
  }

  private closedError(): EmbeddingUnavailableError {
    return new EmbeddingUnavailableError('closed', 'The embedding provider is closed.');
  }

  /** Origin and path: no query string, no credentials. */
  private where(): string {
    const url = new URL(this.url);
    return `${url.origin}${url.pathname}`;
  }

  /** The server's own explanation, shortened, with the API key masked should it be echoed. */
  private providerMessage(text: string): string {
    let message = text.trim();
    try {
      const body = JSON.parse(text) as { error?: unknown; message?: unknown; detail?: unknown };
      const error = body.error as { message?: unknown } | string | undefined;
      const candidate =
        typeof error === 'string' ? error : (error?.message ?? body.message ?? (typeof body.detail === 'string' ? body.detail : undefined));
      if (typeof candidate === 'string') message = candidate;
    } catch {
      // not JSON: keep the text
    }
    const key = this.options.apiKey;
    if (key !== undefined && key.length >= 4) message = message.split(key).join('***');
    return message.length > 500 ? `${message.slice(0, 500)}…` : message;
  }
}

/** `ECONNREFUSED`, `ENOTFOUND`, … from fetch's `cause`, else the error's message. */
function networkCause(error: unknown): string {
  const { message, cause } = (error ?? {}) as { message?: unknown; cause?: { code?: unknown; message?: unknown } };
  if (typeof cause?.code === 'string') return cause.code;
  if (typeof cause?.message === 'string') return cause.message;
  return typeof message === 'string' ? message : String(error);
}
