import type { FusionOptions, HybridHit, PointHit, VectorFilter, VectorIndex, VectorPoint } from '@lore/platform/vectors/port';
import { compileFilter, DEFAULT_FUSION, fuse, matchesFilter } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { ids, point, randomVector, seeded } from './contract-context';

const DIMENSIONS = 8;
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lambda', 'mu'];

export function describeHybridContract(ctx: ContractContext): void {
  describe('vectors: hybrid search', () => {
    let collection: string;
    let points: VectorPoint[];

    async function seededIndex(): Promise<VectorIndex> {
      const index = await ctx.newIndex(DIMENSIONS);
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

    async function legs(index: VectorIndex, depth: number, filter?: VectorFilter): Promise<{ vector: PointHit[]; keyword: PointHit[] }> {
      const scope = filter === undefined ? { collections: [collection] } : { collections: [collection], filter };
      return {
        vector: await index.searchVector({ ...scope, vector: query, limit: depth }),
        keyword: await index.searchKeyword({ ...scope, text, limit: depth }),
      };
    }

    function expectLegsMatch(hits: readonly HybridHit[], leg: { vector: PointHit[]; keyword: PointHit[] }): void {
      const vector = new Map(leg.vector.map((h) => [h.id, h]));
      const keyword = new Map(leg.keyword.map((h) => [h.id, h]));
      for (const hit of hits) {
        expect(hit.legs.vector !== null || hit.legs.keyword !== null).toBe(true);
        const v = vector.get(hit.id);
        const k = keyword.get(hit.id);
        if (v) expect(hit.legs.vector).toEqual({ score: expect.closeTo(v.score, 6) as number, rank: v.rank });
        else expect(hit.legs.vector).toBeNull();
        if (k) expect(hit.legs.keyword).toEqual({ score: expect.closeTo(k.score, 6) as number, rank: k.rank });
        else expect(hit.legs.keyword).toBeNull();
      }
      expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
    }

    function expectFused(hits: readonly HybridHit[], leg: { vector: PointHit[]; keyword: PointHit[] }, fusion: FusionOptions, limit: number): void {
      const expected = fuse(leg.vector, leg.keyword, fusion, limit);
      expect(hits.map((h) => h.score)).toEqual(expected.map((e) => expect.closeTo(e.score, 6) as number));
      // Ids in the same order, except that near-equal fused scores may be ordered either way.
      hits.forEach((hit, i) => {
        const e = expected[i];
        if (e && hit.id !== e.id) expect(Math.abs(hit.score - e.score)).toBeLessThan(1e-6);
      });
    }

    it('carries each leg’s score and rank with every hit, exactly as the single-leg searches report them', async () => {
      const index = await seededIndex();
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 20, candidates: 40 });
      expect(hits).toHaveLength(20);
      expectLegsMatch(hits, await legs(index, 40));
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
      expectLegsMatch(hits, leg);
      expectFused(hits, leg, fusion, 15);
    });

    it('RRF sums 1 / (k + rank) over the legs', async () => {
      const index = await seededIndex();
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text, limit: 10, candidates: 30, fusion: { method: 'rrf', k: 60 } });
      for (const hit of hits) {
        const expected = (hit.legs.vector ? 1 / (60 + hit.legs.vector.rank) : 0) + (hit.legs.keyword ? 1 / (60 + hit.legs.keyword.rank) : 0);
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
      const hits = await index.searchHybrid({ collections: [collection], vector: query, text: '?!', limit: 5 });
      expect(ids(hits)).toEqual(ids(await index.searchVector({ collections: [collection], vector: query, limit: 5 })));
      for (const hit of hits) expect(hit.legs.keyword).toBeNull();
    });

    it('refuses invalid fusion parameters', async () => {
      const index = await seededIndex();
      for (const fusion of [
        { method: 'rrf', k: -1 },
        { method: 'rrf', weights: { vector: 0, keyword: 0 } },
        { method: 'relative_score', alpha: 1.5 },
        { method: 'borda' },
      ] as unknown as FusionOptions[]) {
        await expect(index.searchHybrid({ collections: [collection], vector: query, text, limit: 5, fusion })).rejects.toMatchObject({ code: 'validation' });
      }
    });
  });
}
