import type { Distance, HybridHit, LegCompletion, PointHit, VectorIndex, VectorPoint } from '@lore/platform/vectors/port';
import { completes, completionNeeded, DEFAULT_FUSION, fuse, matchesFilter, MAX_CANDIDATES } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { ids, point, randomVector, seeded } from './contract-context';
import { type VectorFilter, compileFilter, type FusionOptions } from '@lore/platform/kernel';

const DIMENSIONS = 8;
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];

export function describeHybridContract(ctx: ContractContext): void {
  describe('vectors: hybrid search', () => {
    let collection: string;
    let points: VectorPoint[];

    async function seededIndex(distance: Distance = 'cosine'): Promise<VectorIndex> {
      const index = await ctx.newIndex(DIMENSIONS, distance);
      collection = ctx.uniqueName('col');
      const random = seeded(31);
      points = Array.from({ length: 120 }, (_, i) => {
        const words = Array.from({ length: 3 + (i % 5) }, (_, j) => WORDS[(i * 7 + j * 3) % WORDS.length] ?? 'x');
        return point(`h${String(i).padStart(3, '0')}`, collection, randomVector(random, DIMENSIONS), words.join(' '), { metadata: { odd: i % 2 === 1 } });
      });
      await ctx.store().write([{ op: 'upsert', index: index.name, points }]);
      return index;
    }

    const query = randomVector(seeded(77), DIMENSIONS);
    const text = 'alpha kappa';

    interface Legs {
      readonly vector: PointHit[];
      readonly keyword: PointHit[];
      /** Every point's score on each leg, by the adapter's own single-leg searches, as deep as they go (the completion's reference). */
      readonly allVector: ReadonlyMap<string, number>;
      readonly allKeyword: ReadonlyMap<string, number>;
    }

    async function legs(index: VectorIndex, depth: number, filter?: VectorFilter, words = text): Promise<Legs> {
      const scope = filter === undefined ? { collections: [collection] } : { collections: [collection], filter };
      const all = async (limit: number): Promise<[PointHit[], PointHit[]]> => [
        await index.searchVector({ ...scope, vector: query, limit }),
        await index.searchKeyword({ ...scope, text: words, limit }),
      ];
      const [vector, keyword] = await all(depth);
      const [allVector, allKeyword] = await all(MAX_CANDIDATES);
      return { vector, keyword, allVector: new Map(allVector.map((h) => [h.id, h.score])), allKeyword: new Map(allKeyword.map((h) => [h.id, h.score])) };
    }

    /** What the adapter must have completed, taken from the deep single-leg searches. */
    function completionOf(leg: Legs, fusion: FusionOptions): LegCompletion {
      const needed = completionNeeded(leg.vector, leg.keyword, fusion);
      const pick = (ids: readonly string[], scores: ReadonlyMap<string, number>): Map<string, number> =>
        new Map(ids.flatMap((id): Array<[string, number]> => (scores.has(id) ? [[id, scores.get(id) ?? NaN]] : [])));
      return { vector: pick(needed.vector, leg.allVector), keyword: pick(needed.keyword, leg.allKeyword) };
    }

    function expectLegsMatch(hits: readonly HybridHit[], leg: Legs, fusion: FusionOptions = DEFAULT_FUSION): void {
      const vector = new Map(leg.vector.map((h) => [h.id, h]));
      const keyword = new Map(leg.keyword.map((h) => [h.id, h]));
      for (const hit of hits) {
        expect(vector.has(hit.id) || keyword.has(hit.id)).toBe(true);
        const v = vector.get(hit.id);
        const k = keyword.get(hit.id);
        if (v) expect(hit.legs.vector).toEqual({ score: expect.closeTo(v.score, 6) as number, rank: v.rank });
        else if (completes(fusion)) expect(hit.legs.vector).toEqual({ score: expect.closeTo(leg.allVector.get(hit.id) ?? NaN, 6) as number, rank: null });
        else expect(hit.legs.vector).toBeNull();
        if (k) expect(hit.legs.keyword).toEqual({ score: expect.closeTo(k.score, 6) as number, rank: k.rank });
        else if (completes(fusion)) expect(hit.legs.keyword).toEqual({ score: expect.closeTo(leg.allKeyword.get(hit.id) ?? 0, 6) as number, rank: null });
        else expect(hit.legs.keyword).toBeNull();
      }
      expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
    }

    function expectOrder(hits: readonly HybridHit[], expected: ReadonlyArray<{ id: string; score: number }>): void {
      expect(hits.map((h) => h.score)).toEqual(expected.map((e) => expect.closeTo(e.score, 6) as number));
      // Ids in the same order, except that near-equal fused scores may be ordered either way.
      hits.forEach((hit, i) => {
        const e = expected[i];
        if (e && hit.id !== e.id) expect(Math.abs(hit.score - e.score)).toBeLessThan(1e-6);
      });
    }

    function expectFused(hits: readonly HybridHit[], leg: Legs, fusion: FusionOptions, limit: number): void {
      expectOrder(hits, fuse(leg.vector, leg.keyword, fusion, limit, completionOf(leg, fusion)));
    }

    /**
     * weighted_score by brute force, independently of `fuse`: the union of both legs' top
     * `depth`, each candidate scored on both legs by the deep single-leg searches (BM25 0 when
     * it does not match), w · vector + (1 − w) · bm25 / the query's top bm25.
     */
    function bruteWeighted(leg: Legs, weight: number, limit: number): Array<{ id: string; score: number }> {
      const union = new Set([...leg.vector.map((h) => h.id), ...leg.keyword.map((h) => h.id)]);
      const top = Math.max(0, ...leg.allKeyword.values());
      return [...union]
        .map((id) => ({ id, score: weight * (leg.allVector.get(id) ?? NaN) + (top > 0 ? ((1 - weight) * (leg.allKeyword.get(id) ?? 0)) / top : 0) }))
        .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
        .slice(0, limit);
    }

    it('carries each leg’s score and rank with every hit, exactly as the single-leg searches report them', async () => {
      const index = await seededIndex();
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 20, candidates: 40 });
      expect(hits).toHaveLength(20);
      expectLegsMatch(hits, await legs(index, 40));
      const rrf = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 20, candidates: 40, fusion: { method: 'rrf' } });
      expectLegsMatch(rrf, await legs(index, 40), { method: 'rrf' });
      const first = hits[0];
      expect(first).toMatchObject({ collectionId: collection, payload: { content_id: 'content-1' } });
      expect(points.find((p) => p.id === first?.id)?.text).toBe(first?.text);
    });

    it.each<[string, FusionOptions]>([
      ['the default fusion', DEFAULT_FUSION],
      ['RRF with k 10', { method: 'rrf', k: 10 }],
      ['weighted RRF', { method: 'rrf', k: 60, weights: { vector: 2, keyword: 0.5 } }],
      ['relative score, alpha 0.3', { method: 'relative_score', alpha: 0.3 }],
      ['relative score, alpha 0.8', { method: 'relative_score', alpha: 0.8 }],
      ['DBSF', { method: 'dbsf' }],
    ])('fuses by %s as specified', async (_title, fusion) => {
      const index = await seededIndex();
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 15, candidates: 30, fusion });
      const leg = await legs(index, 30);
      expectLegsMatch(hits, leg, fusion);
      expectFused(hits, leg, fusion, 15);
    });

    it('default fusion is weighted_score, 0.7 on the vector leg', async () => {
      expect(DEFAULT_FUSION).toEqual({ method: 'weighted_score', weight: 0.7 });
      const index = await seededIndex();
      const search = (fusion?: FusionOptions): Promise<HybridHit[]> =>
        index.searchHybrid({ collections: [collection], vector: query, text, limit: 15, candidates: 20, ...(fusion ? { fusion } : {}) });
      expect(await search()).toEqual(await search({ method: 'weighted_score', weight: 0.7 }));
      expect(await search()).toEqual(await search({ method: 'weighted_score' }));
    });

    it.each<[Distance, number]>([
      ['cosine', 0.75],
      ['cosine', 0.5],
      ['euclidean', 0.75],
    ])('weighted_score (%s, weight %s) is the formula over the union of both legs’ top N, every candidate scored on both legs', async (distance, weight) => {
      const index = await seededIndex(distance);
      // Deep enough that the union holds keyword-only and vector-only candidates, shallow enough that some lack a leg.
      const depth = 12;
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: depth, candidates: depth, fusion: { method: 'weighted_score', weight } });
      const leg = await legs(index, depth);
      expectOrder(hits, bruteWeighted(leg, weight, depth));
      expectLegsMatch(hits, leg, { method: 'weighted_score', weight });
      // Completion is exercised: among the union some candidates were completed on each leg.
      const all = await index.searchHybrid({ collections: [collection], vector: query, text, limit: depth, candidates: depth, fusion: { method: 'weighted_score', weight: 0.5 } });
      const completed = [...hits, ...all];
      expect(completed.some((h) => h.legs.vector?.rank === null && (h.legs.keyword?.rank ?? null) !== null)).toBe(true);
      expect(completed.some((h) => h.legs.keyword?.rank === null && (h.legs.vector?.rank ?? null) !== null)).toBe(true);
    });

    it('weighted_score completes a vector-only candidate with its real BM25, or 0 when it does not match the text', async () => {
      const index = await seededIndex();
      const depth = 12;
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: depth, candidates: depth, fusion: { method: 'weighted_score', weight: 0.99 } });
      const leg = await legs(index, depth);
      const vectorOnly = hits.filter((h) => h.legs.keyword?.rank === null);
      expect(vectorOnly.some((h) => (h.legs.keyword?.score ?? 0) > 0)).toBe(true);
      expect(vectorOnly.some((h) => h.legs.keyword?.score === 0)).toBe(true);
      for (const hit of vectorOnly) expect(hit.legs.keyword?.score).toBeCloseTo(leg.allKeyword.get(hit.id) ?? 0, 6);
      // …and a keyword-only candidate with its real similarity to the query vector.
      const keywordOnly = (
        await index.searchHybrid({ collections: [collection], vector: query, text, limit: depth, candidates: depth, fusion: { method: 'weighted_score', weight: 0.01 } })
      ).filter((h) => h.legs.vector?.rank === null);
      expect(keywordOnly.length).toBeGreaterThan(0);
      for (const hit of keywordOnly) expect(hit.legs.vector?.score).toBeCloseTo(leg.allVector.get(hit.id) ?? NaN, 6);
    });

    it('weighted_score with no keyword match (top BM25 0) is the vector leg’s order, scored weight · similarity', async () => {
      const index = await seededIndex();
      const vector = await index.searchVector({ collections: [collection], vector: query, limit: 10 });
      for (const words of ['omicron sigma', '?!']) {
        const hits = await index.searchHybrid({ collections: [collection], vector: query, text: words, limit: 10, candidates: 20 });
        expect(ids(hits)).toEqual(ids(vector));
        hits.forEach((hit, i) => {
          expect(hit.score).toBeCloseTo(0.7 * (vector[i]?.score ?? NaN), 6);
          expect(hit.legs.keyword).toEqual({ score: 0, rank: null });
        });
      }
    });

    it('RRF sums 1 / (k + rank) over the legs', async () => {
      const index = await seededIndex();
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 10, candidates: 30, fusion: { method: 'rrf', k: 60 } });
      for (const hit of hits) {
        const vectorRank = hit.legs.vector?.rank ?? null;
        const keywordRank = hit.legs.keyword?.rank ?? null;
        const expected = (vectorRank === null ? 0 : 1 / (60 + vectorRank)) + (keywordRank === null ? 0 : 1 / (60 + keywordRank));
        expect(hit.score).toBeCloseTo(expected, 10);
      }
    });

    it('the methods differ: a leg weighted to zero, or alpha at an end, leaves the other leg’s order', async () => {
      const index = await seededIndex();
      const leg = await legs(index, 30);
      const search = (fusion: FusionOptions): Promise<HybridHit[]> => index.searchHybrid({ collections: [collection], vector: query, text, limit: 10, candidates: 30, fusion });
      expect(ids(await search({ method: 'rrf', weights: { vector: 1, keyword: 0 } }))).toEqual(ids(leg.vector).slice(0, 10));
      expect(ids(await search({ method: 'relative_score', alpha: 1 }))).toEqual(ids(leg.vector).slice(0, 10));
      // alpha 0: the keyword leg's order (its ties broken by the vector leg, see fusion.ts).
      const keywordFirst = await search({ method: 'relative_score', alpha: 0 });
      expect(keywordFirst[0]?.legs.keyword?.score).toBeCloseTo(leg.keyword[0]?.score ?? NaN, 6);
      const keywordScores = keywordFirst.map((h) => h.legs.keyword?.score ?? -Infinity);
      expect(keywordScores).toEqual([...keywordScores].sort((a, b) => b - a));
      const rrf = ids(await search({ method: 'rrf' }));
      const relative = ids(await search({ method: 'relative_score', alpha: 0.5 }));
      expect(rrf).not.toEqual(ids(leg.vector).slice(0, 10));
      expect(relative).not.toEqual(rrf);
    });

    it('applies the same filter to both legs before fusion', async () => {
      const index = await seededIndex();
      const filter: VectorFilter = { 'metadata.odd': true };
      const hits = await index.searchHybrid({ collections: [collection], filter, vector: query, text, limit: 20, candidates: 25 });
      const compiled = compileFilter(filter);
      for (const hit of hits) expect(matchesFilter(compiled, hit.payload)).toBe(true);
      const leg = await legs(index, 25, filter);
      expectLegsMatch(hits, leg);
      expectFused(hits, leg, DEFAULT_FUSION, 20);
    });

    it('limits each leg to `candidates`', async () => {
      const index = await seededIndex();
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 3, candidates: 3 });
      expect(hits.length).toBeLessThanOrEqual(3);
      for (const hit of hits) {
        expect(hit.legs.vector?.rank ?? 1).toBeLessThanOrEqual(3);
        expect(hit.legs.keyword?.rank ?? 1).toBeLessThanOrEqual(3);
      }
      await expect(index.searchHybrid({ collections: [collection], vector: query, text, limit: 5, candidates: 2 })).rejects.toMatchObject({ code: 'validation' });
    });

    it('falls back to the vector leg when the text has no terms', async () => {
      const index = await seededIndex();
      const vector = ids(await index.searchVector({ collections: [collection], vector: query, limit: 5 }));
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text: '?!', limit: 5 });
      expect(ids(hits)).toEqual(vector);
      for (const hit of hits) expect(hit.legs.keyword).toEqual({ score: 0, rank: null });
      const rrf = await index.searchHybrid({ collections: [collection], vector: query, text: '?!', limit: 5, fusion: { method: 'rrf' } });
      expect(ids(rrf)).toEqual(vector);
      for (const hit of rrf) expect(hit.legs.keyword).toBeNull();
    });

    it('refuses invalid fusion parameters', async () => {
      const index = await seededIndex();
      for (const fusion of [
        { method: 'rrf', k: -1 },
        { method: 'rrf', weights: { vector: 0, keyword: 0 } },
        { method: 'relative_score', alpha: 1.5 },
        { method: 'weighted_score', weight: 1.5 },
        { method: 'weighted_score', weight: -0.25 },
        { method: 'borda' },
      ] as unknown as FusionOptions[]) {
        await expect(index.searchHybrid({ collections: [collection], vector: query, text, limit: 5, fusion })).rejects.toMatchObject({ code: 'validation' });
      }
    });
  });
}
