import { DEFAULT_RERANK_CANDIDATES, invalid, type RerankOnError, type RerankOptions, type RerankOutcome } from '@lore/platform/kernel';
import { RerankFailure, type RerankProvider, type Rerankers } from './rerank.port';

/** A hit's rerank score and its 1-based rank after re-ranking. */
export interface RerankMark {
  readonly score: number;
  readonly rank: number;
}

/**
 * The re-ranking step of one search, checked before retrieval runs (an unknown provider is a
 * 422 at `rerank.provider`, not a wasted search): how many hits to retrieve (`candidates`) and
 * how many to keep after re-ranking (`topN`).
 */
export class RerankStep {
  private constructor(
    private readonly provider: RerankProvider,
    readonly model: string,
    readonly topN: number,
    readonly candidates: number,
    private readonly onError: RerankOnError,
  ) {}

  /** `limit`: the search's own result count, the default top_n. */
  static plan(rerankers: Rerankers, options: RerankOptions, limit: number): RerankStep {
    const name = options.provider ?? rerankers.defaultProvider;
    if (name === null) throw invalid(['message', 'rerank', 'provider'], 'No rerank provider is configured in this service (README: Re-ranking)');
    const provider = rerankers.get(name);
    if (provider === null) {
      const known = rerankers.list().map((p) => p.provider);
      throw invalid(['message', 'rerank', 'provider'], `Rerank provider ${name} is not configured${known.length === 0 ? '' : `; available: ${known.join(', ')}`}`);
    }
    const topN = options.top_n ?? limit;
    const candidates = Math.max(options.candidates ?? DEFAULT_RERANK_CANDIDATES, topN);
    return new RerankStep(provider, options.model ?? provider.info.model, topN, candidates, options.on_error ?? 'fail');
  }

  /**
   * The hits in rerank order (at most topN), each with its mark; on a provider failure with
   * `on_error: "skip"`, the first topN hits in retrieval order, unmarked, and the error in the
   * outcome. With `fail` the failure propagates (502/504).
   */
  async apply<H>(query: string, hits: readonly H[], textOf: (hit: H) => string): Promise<{ ranked: Array<{ hit: H; rerank: RerankMark | null }>; outcome: RerankOutcome }> {
    const started = performance.now();
    const outcome = (applied: boolean, error: string | null): RerankOutcome => ({
      provider: this.provider.info.provider,
      model: this.model,
      candidates: hits.length,
      top_n: this.topN,
      applied,
      error,
      elapsed_ms: Math.round((performance.now() - started) * 100) / 100,
    });
    if (hits.length === 0) return { ranked: [], outcome: outcome(true, null) };
    try {
      const scored = await this.provider.rerank(query, hits.map(textOf), { model: this.model });
      const ranked = scored.slice(0, this.topN).map((s, i) => ({ hit: hits[s.index] as H, rerank: { score: s.score, rank: i + 1 } }));
      return { ranked, outcome: outcome(true, null) };
    } catch (error) {
      if (this.onError === 'fail' || !(error instanceof RerankFailure)) throw error;
      return { ranked: hits.slice(0, this.topN).map((hit) => ({ hit, rerank: null })), outcome: outcome(false, error.message) };
    }
  }
}
