import { z } from 'zod';

/**
 * The optional re-ranking step of a search (knowledge search, memory search, the context
 * endpoint), as request fields and as a collection's default (`settings.rerank`). The same
 * schema serves both: a query's fields override the collection's, field by field.
 */

/** Most retrieval hits one rerank call scores (every rerank API bills or slows per document). */
export const MAX_RERANK_CANDIDATES = 200;
/** Retrieval hits sent to the reranker when neither the query nor the collection says. */
export const DEFAULT_RERANK_CANDIDATES = 50;

export const RERANK_ON_ERROR = ['fail', 'skip'] as const;
export type RerankOnError = (typeof RERANK_ON_ERROR)[number];

export const RerankOptionsInput = z
  .object({
    provider: z.string().min(1).max(50).optional().describe('A configured rerank provider: `cohere`, `jina`, `tei`, `vllm` or `local` (default RERANK_DEFAULT_PROVIDER)'),
    model: z.string().min(1).max(200).optional().describe("The provider's model (default: the one configured for it)"),
    top_n: z.number().int().min(1).max(100).optional().describe('Hits returned after re-ranking (default: the search\'s own limit)'),
    candidates: z
      .number()
      .int()
      .min(1)
      .max(MAX_RERANK_CANDIDATES)
      .optional()
      .describe(`Retrieval hits sent to the reranker (default ${DEFAULT_RERANK_CANDIDATES}, at least top_n)`),
    on_error: z
      .enum(RERANK_ON_ERROR)
      .optional()
      .describe('When the provider fails or times out: `fail` (default) answers 502/504; `skip` returns the retrieval order with `rerank.applied: false` and the error'),
  })
  .strict()
  .describe('Re-rank the retrieval hits with a cross-encoder or a rerank API');
export type RerankOptions = z.output<typeof RerankOptionsInput>;

/** A query's `rerank`: options, or `false` to skip a collection's default re-ranking. */
export const RerankRequestInput = z.union([z.literal(false), RerankOptionsInput]);
export type RerankRequest = z.output<typeof RerankRequestInput>;

/** How a hit scored with the reranker: its relevance score and its 1-based rank after re-ranking. */
export const RerankScore = z.object({ score: z.number(), rank: z.number().int() }).meta({ id: 'RerankScore' });

/** What the reply says about the re-ranking step (null when there was none). */
export const RerankOutcome = z
  .object({
    provider: z.string(),
    model: z.string(),
    candidates: z.number().int().describe('Retrieval hits sent to the reranker'),
    top_n: z.number().int(),
    applied: z.boolean().describe('false: the provider failed and `on_error: "skip"` kept the retrieval order'),
    error: z.string().nullable().describe('Why re-ranking was skipped'),
    elapsed_ms: z.number(),
  })
  .meta({ id: 'RerankOutcome' });
export type RerankOutcome = z.infer<typeof RerankOutcome>;

/**
 * One effective choice from a query's `rerank` and a collection's default: null when neither
 * asks for re-ranking (or the query says `false`).
 */
export function effectiveRerank(query: RerankRequest | null | undefined, collectionDefault: RerankOptions | null | undefined): RerankOptions | null {
  if (query === false) return null;
  if (query == null) return collectionDefault ?? null;
  return { ...(collectionDefault ?? {}), ...definedOnly(query) };
}

function definedOnly(options: RerankOptions): RerankOptions {
  return Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined));
}
