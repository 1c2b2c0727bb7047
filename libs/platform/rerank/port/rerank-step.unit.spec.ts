import { AppError, effectiveRerank } from '@lore/platform/kernel';
import { RerankFailure, type RerankProvider, type Rerankers } from './rerank.port';
import { RerankStep } from './rerank-step';

/** A provider that scores a document by its length, or fails as told. */
function provider(fail?: RerankFailure): RerankProvider {
  return {
    info: { provider: 'stub', model: 'stub-model' },
    rerank: async (_query, documents) => {
      if (fail !== undefined) throw fail;
      return documents.map((d, index) => ({ index, score: d.length })).sort((a, b) => b.score - a.score);
    },
    close: async () => undefined,
  };
}

function rerankers(p: RerankProvider): Rerankers {
  return { defaultProvider: 'stub', list: () => [p.info], get: (name) => (name === 'stub' ? p : null), close: async () => undefined };
}

describe('RerankStep', () => {
  it('retrieves `candidates` (at least top_n) and keeps top_n in the provider\'s order, marking each', async () => {
    const step = RerankStep.plan(rerankers(provider()), { top_n: 2, candidates: 1 }, 10);
    expect({ topN: step.topN, candidates: step.candidates, model: step.model }).toEqual({ topN: 2, candidates: 2, model: 'stub-model' });
    const { ranked, outcome } = await step.apply('q', ['a', 'ccc', 'bb'], (d) => d);
    expect(ranked).toEqual([
      { hit: 'ccc', rerank: { score: 3, rank: 1 } },
      { hit: 'bb', rerank: { score: 2, rank: 2 } },
    ]);
    expect(outcome).toMatchObject({ provider: 'stub', model: 'stub-model', candidates: 3, top_n: 2, applied: true, error: null });
  });

  it('defaults top_n to the search limit and candidates to 50', () => {
    const step = RerankStep.plan(rerankers(provider()), {}, 7);
    expect({ topN: step.topN, candidates: step.candidates }).toEqual({ topN: 7, candidates: 50 });
  });

  it('is a 422 at rerank.provider for a provider not configured', () => {
    const error = (() => {
      try {
        RerankStep.plan(rerankers(provider()), { provider: 'other' }, 10);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'validation', issues: [{ loc: ['message', 'rerank', 'provider'] }] });
  });

  it('fails with the provider\'s error by default, and keeps the retrieval order with on_error: "skip"', async () => {
    const failure = new RerankFailure('server_error', 'stub', 'answered 500');
    await expect(RerankStep.plan(rerankers(provider(failure)), {}, 2).apply('q', ['a', 'bb', 'ccc'], (d) => d)).rejects.toBe(failure);
    const skipped = await RerankStep.plan(rerankers(provider(failure)), { on_error: 'skip' }, 2).apply('q', ['a', 'bb', 'ccc'], (d) => d);
    expect(skipped.ranked).toEqual([
      { hit: 'a', rerank: null },
      { hit: 'bb', rerank: null },
    ]);
    expect(skipped.outcome).toMatchObject({ applied: false, error: 'Rerank provider stub answered 500' });
  });
});

describe('effectiveRerank', () => {
  it("takes the collection's default, overridden field by field by the query; false turns it off", () => {
    const collection = { provider: 'tei', top_n: 3, candidates: 30 };
    expect(effectiveRerank(undefined, collection)).toEqual(collection);
    expect(effectiveRerank({ top_n: 1 }, collection)).toEqual({ provider: 'tei', top_n: 1, candidates: 30 });
    expect(effectiveRerank(false, collection)).toBeNull();
    expect(effectiveRerank(null, null)).toBeNull();
    expect(effectiveRerank({ provider: 'cohere' }, null)).toEqual({ provider: 'cohere' });
  });
});
