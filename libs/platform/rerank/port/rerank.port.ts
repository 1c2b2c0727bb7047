import { AppError } from '@lore/platform/kernel';

/**
 * A reranker: scores documents against a query (a cross-encoder reads both together, which
 * is what makes it better at ordering than the retrievers' separate encodings). Adapters: the
 * rerank APIs of Cohere, Jina, Hugging Face TEI and vLLM (`http/`) and a local ONNX
 * cross-encoder (`local/`).
 */
export interface RerankProviderInfo {
  /** The name requests use: `cohere`, `jina`, `tei`, `vllm`, `local`. */
  readonly provider: string;
  /** The model used when a request names none. */
  readonly model: string;
}

export interface RerankScored {
  /** Position of the document in the list given. */
  readonly index: number;
  /** Higher is more relevant; comparable only within one provider and model. */
  readonly score: number;
}

export interface RerankProvider {
  readonly info: RerankProviderInfo;
  /**
   * Every document's score, best first (the caller keeps the top ones: not every API can be
   * asked for fewer, and asking for all keeps the adapters alike). Rejects with a
   * `RerankFailure`.
   */
  rerank(query: string, documents: readonly string[], options?: { readonly model?: string }): Promise<RerankScored[]>;
  close(): Promise<void>;
}

/** The rerank providers of a process, by name. */
export interface Rerankers {
  /** The provider a request without one uses; null when none is configured. */
  readonly defaultProvider: string | null;
  list(): readonly RerankProviderInfo[];
  get(provider: string): RerankProvider | null;
  close(): Promise<void>;
}

export type RerankFailureReason = 'timeout' | 'rate_limited' | 'server_error' | 'refused' | 'bad_response' | 'network' | 'model_not_found';

/**
 * A failed rerank call, as the caller of the search sees it: 504 when the provider did not
 * answer in time, 503 when the local model is not installed, 502 for every other failure of
 * the provider (after the retries), with the
 * provider's own message where it sent one (never the request, which may carry a key).
 */
export class RerankFailure extends AppError {
  constructor(
    readonly reason: RerankFailureReason,
    provider: string,
    detail: string,
  ) {
    super(reason === 'timeout' ? 'gateway_timeout' : reason === 'model_not_found' ? 'unavailable' : 'bad_gateway', `Rerank provider ${provider} ${detail}`);
    this.name = 'RerankFailure';
  }
}

/** Rerankers with none configured (tools and tests that need no re-ranking). */
export const NO_RERANKERS: Rerankers = {
  defaultProvider: null,
  list: () => [],
  get: () => null,
  close: async () => undefined,
};
