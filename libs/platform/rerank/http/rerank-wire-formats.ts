import type { RerankScored } from '@lore/platform/rerank/port';

/**
 * The four rerank APIs Lore speaks, each exactly as its documentation describes it: where the
 * request goes, what it carries, how scores come back, and where the error message is.
 */
export type RerankApi = 'cohere' | 'jina' | 'tei' | 'vllm';

export interface RerankWireFormat {
  /** Appended to the configured base URL. */
  readonly path: string;
  body(model: string, query: string, documents: readonly string[]): unknown;
  /** The scores, or a string saying what is wrong with the body. */
  scores(body: unknown, count: number): RerankScored[] | string;
  /** The provider's own message in an error body, when it sent one. */
  errorMessage(body: unknown): string | undefined;
}

/**
 * `{results: [{index, relevance_score}]}`: the shape Cohere defined and Jina and vLLM adopted.
 * Every index must be a distinct position of the request's documents.
 */
function resultsList(body: unknown, count: number): RerankScored[] | string {
  const results = (body as { results?: unknown } | null)?.results;
  if (!Array.isArray(results)) return 'no `results` array';
  return indexedScores(results.map((r: { index?: unknown; relevance_score?: unknown } | null) => ({ index: r?.index, score: r?.relevance_score })), count);
}

function indexedScores(items: ReadonlyArray<{ index: unknown; score: unknown }>, count: number): RerankScored[] | string {
  const seen = new Set<number>();
  const scored: RerankScored[] = [];
  for (const { index, score } of items) {
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count || seen.has(index)) return `bad or repeated index ${JSON.stringify(index) ?? 'undefined'}`;
    if (typeof score !== 'number' || !Number.isFinite(score)) return `no numeric score for index ${index}`;
    seen.add(index);
    scored.push({ index, score });
  }
  if (scored.length !== count) return `${scored.length} scores for ${count} documents`;
  // Best first, ties in the order given (the retrieval order): every API sorts, but none promises stable ties.
  return scored.sort((a, b) => b.score - a.score || a.index - b.index);
}

function stringAt(body: unknown, ...path: string[]): string | undefined {
  let value: unknown = body;
  for (const key of path) value = (value as Record<string, unknown> | null)?.[key];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

export const RERANK_WIRE_FORMATS: Readonly<Record<RerankApi, RerankWireFormat>> = {
  /**
   * Cohere rerank v2, https://docs.cohere.com/reference/rerank: POST /v2/rerank
   * `{model, query, documents: string[], top_n}` → `{id, results: [{index, relevance_score}], meta}`;
   * errors `{"message": "..."}`. Base URL: https://api.cohere.com.
   */
  cohere: {
    path: '/v2/rerank',
    body: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
    scores: resultsList,
    errorMessage: (body) => stringAt(body, 'message'),
  },
  /**
   * Jina Reranker API, https://jina.ai/reranker/ : POST /v1/rerank
   * `{model, query, documents, top_n, return_documents}` → `{model, usage: {total_tokens},
   * results: [{index, relevance_score, document?}]}`; errors `{"detail": "..."}`.
   * Base URL: https://api.jina.ai.
   */
  jina: {
    path: '/v1/rerank',
    body: (model, query, documents) => ({ model, query, documents, top_n: documents.length, return_documents: false }),
    scores: resultsList,
    errorMessage: (body) => stringAt(body, 'detail') ?? stringAt(body, 'detail', 'message'),
  },
  /**
   * Hugging Face Text Embeddings Inference, https://huggingface.github.io/text-embeddings-inference/
   * (`/rerank`): POST /rerank `{query, texts, raw_scores, truncate}` → `[{index, score}]`;
   * errors `{"error": "...", "error_type": "..."}` (413 too many texts, 422 validation, 424
   * backend, 429 overloaded). `raw_scores: false`: sigmoid-normalised scores, as Cohere's are;
   * `truncate: true`: a long passage is cut to the model's length, not refused.
   */
  tei: {
    path: '/rerank',
    body: (_model, query, documents) => ({ query, texts: documents, raw_scores: false, truncate: true }),
    scores: (body, count) =>
      Array.isArray(body) ? indexedScores(body.map((r: { index?: unknown; score?: unknown } | null) => ({ index: r?.index, score: r?.score })), count) : 'not an array of {index, score}',
    errorMessage: (body) => stringAt(body, 'error'),
  },
  /**
   * vLLM's rerank API, https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html
   * (Re-rank API, Jina- and Cohere-compatible): POST /v1/rerank `{model, query, documents, top_n}`
   * → `{id, model, usage, results: [{index, document: {text}, relevance_score}]}`; errors as
   * OpenAI's, `{"error": {"message", "type", "code"}}` (older releases: `{"object": "error",
   * "message", ...}`). Base URL: the server root, e.g. http://localhost:8000.
   */
  vllm: {
    path: '/v1/rerank',
    body: (model, query, documents) => ({ model, query, documents, top_n: documents.length }),
    scores: resultsList,
    errorMessage: (body) => stringAt(body, 'error', 'message') ?? stringAt(body, 'message'),
  },
};
