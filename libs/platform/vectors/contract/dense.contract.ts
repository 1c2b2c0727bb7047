import type { Distance, VectorPoint } from '@lore/platform/vectors/port';
import { matchesFilter } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { bruteForce, expectSameTopK, ids, point, randomVector, seeded } from './contract-context';
import { type VectorFilter, compileFilter } from '@lore/platform/kernel';

const DIMENSIONS = 16;

export function describeDenseContract(ctx: ContractContext): void {
  describe('vectors: dense k-NN', () => {
    it.each<Distance>(['cosine', 'euclidean'])('returns exactly the brute-force top k (%s), within one and across two collections', async (distance) => {
      const index = await ctx.newIndex(DIMENSIONS, distance);
      const [a, b] = [ctx.uniqueName('a'), ctx.uniqueName('b')];
      const random = seeded(distance === 'cosine' ? 11 : 12);
      const points = Array.from({ length: 400 }, (_, i) => point(`p${i}`, i < 300 ? a : b, randomVector(random, DIMENSIONS)));
      await ctx.store().write([{ op: 'upsert', index: index.name, points }]);
      for (let q = 0; q < 6; q++) {
        const query = randomVector(random, DIMENSIONS);
        for (const [scope, k] of [[[a], 10], [[a, b], 25], [[b], 1]] as const) {
          const hits = await index.searchVector({ collections: scope, vector: query, limit: k });
          expectSameTopK(hits, bruteForce(points.filter((p) => scope.includes(p.collectionId)), query, distance, k));
          expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
        }
      }
    });

    it('returns every point when the collection holds fewer than k', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const collection = ctx.uniqueName('col');
      const random = seeded(3);
      const points = Array.from({ length: 4 }, (_, i) => point(`p${i}`, collection, randomVector(random, DIMENSIONS)));
      await ctx.store().write([{ op: 'upsert', index: index.name, points }]);
      expect((await index.searchVector({ collections: [collection], vector: randomVector(random, DIMENSIONS), limit: 10 })).length).toBe(4);
      expect(await index.searchVector({ collections: [ctx.uniqueName('empty')], vector: randomVector(random, DIMENSIONS), limit: 10 })).toEqual([]);
    });

    it('scores a stored vector as identical to itself and returns its payload and text', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const collection = ctx.uniqueName('col');
      const random = seeded(4);
      const target = point('target', collection, randomVector(random, DIMENSIONS), 'the target text', { content_id: 'doc', chunk_index: 3, source: 's.md', tags: ['t'], metadata: { k: [1, { a: 'b' }] } });
      const others = Array.from({ length: 20 }, (_, i) => point(`o${i}`, collection, randomVector(random, DIMENSIONS)));
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [target, ...others] }]);
      const [hit] = await index.searchVector({ collections: [collection], vector: target.vector, limit: 1 });
      expect(hit).toMatchObject({ id: 'target', collectionId: collection, text: 'the target text', payload: target.payload, rank: 1 });
      expect(hit?.score).toBeCloseTo(1, 5);
    });

    describe('with payload filters: exactly the k nearest matching points', () => {
      const N = 600;
      const GROUPS = 50;
      let points: VectorPoint[] = [];
      let collection: string;

      async function seededIndex(): Promise<ReturnType<ContractContext['newIndex']>> {
        const index = await ctx.newIndex(DIMENSIONS);
        collection = ctx.uniqueName('col');
        const random = seeded(21);
        points = Array.from({ length: N }, (_, i) =>
          point(`p${i}`, collection, randomVector(random, DIMENSIONS), `text ${i}`, {
            content_id: `content-${i % 20}`,
            chunk_index: i,
            source: i % 3 === 0 ? 'web' : null,
            tags: i % 7 === 0 ? ['seven'] : [],
            metadata: { group: i % GROUPS, half: i % 2 === 0 },
          }),
        );
        // Decoys in another collection that match every filter: scope must still exclude them.
        const decoys = points.slice(0, 50).map((p) => ({ ...p, id: `decoy-${p.id}`, collectionId: ctx.uniqueName('other') }));
        await ctx.store().write([{ op: 'upsert', index: index.name, points: [...points, ...decoys] }]);
        return index;
      }

      const CASES: ReadonlyArray<readonly [string, VectorFilter, number]> = [
        ['a selective metadata filter (2% match)', { 'metadata.group': 7 }, 10],
        ['a selective filter deeper than the first over-fetch', { 'metadata.group': { $in: [3, 4] } }, 20],
        ['a broad metadata filter (50% match)', { 'metadata.half': true }, 10],
        ['a tags filter', { tags: 'seven' }, 10],
        ['a filter vec0 evaluates itself (content_id)', { content_id: { $in: ['content-3', 'content-4'] } }, 15],
        ['a chunk_index range', { chunk_index: { $gte: 100, $lt: 160 } }, 10],
        ['pushed-down and residual conditions together', { content_id: 'content-5', 'metadata.half': false, source: { $exists: false } }, 5],
        ['an $or across fields', { $or: [{ 'metadata.group': 9 }, { content_id: 'content-11' }] }, 12],
        ['a $not', { $not: { 'metadata.group': { $lt: 48 } } }, 10],
        ['fewer matches than k returns them all', { 'metadata.group': 7, chunk_index: { $lt: 200 } }, 10],
        ['no match returns nothing', { 'metadata.group': 999 }, 10],
      ];

      it.each(CASES)('%s', async (_title, filter, k) => {
        const index = await seededIndex();
        const compiled = compileFilter(filter);
        const matching = points.filter((p) => matchesFilter(compiled, p.payload));
        const random = seeded(99);
        for (let q = 0; q < 3; q++) {
          const query = randomVector(random, DIMENSIONS);
          const hits = await index.searchVector({ collections: [collection], filter, vector: query, limit: k });
          expectSameTopK(hits, bruteForce(matching, query, 'cosine', k));
          for (const hit of hits) expect(matchesFilter(compiled, hit.payload)).toBe(true);
        }
      });

      it('the same filters hold at the depth of a hybrid leg', async () => {
        const index = await seededIndex();
        const filter: VectorFilter = { 'metadata.group': { $in: [1, 2, 3] } };
        const query = randomVector(seeded(5), DIMENSIONS);
        const hits = await index.searchVector({ collections: [collection], filter, vector: query, limit: 30 });
        const compiled = compileFilter(filter);
        expectSameTopK(hits, bruteForce(points.filter((p) => matchesFilter(compiled, p.payload)), query, 'cosine', 30));
        expect(ids(hits)).toHaveLength(30);
      });
    });
  });
}
