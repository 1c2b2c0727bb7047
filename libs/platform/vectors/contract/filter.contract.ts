import { AppError, type VectorFilter } from '@lore/platform/kernel';
import type { VectorIndex } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { payload, point, randomVector, seeded, sortedIds } from './contract-context';
import { FILTER_CASES, FILTER_POINTS, INVALID_FILTERS } from './filter-cases';

const DIMENSIONS = 8;

export function describeFilterContract(ctx: ContractContext): void {
  describe('vectors: one filter grammar for every operation', () => {
    let collection: string;

    async function seededIndex(): Promise<VectorIndex> {
      const index = await ctx.newIndex(DIMENSIONS);
      collection = ctx.uniqueName('col');
      const random = seeded(7);
      const points = FILTER_POINTS.map(([id, stored]) => ({ ...point(id, collection, randomVector(random, DIMENSIONS), `common words for ${id}`), payload: stored }));
      // A point of another collection matching every filter above except scope: never returned.
      const stranger = { ...point('stranger', ctx.uniqueName('other'), randomVector(random, DIMENSIONS), 'common words'), payload: FILTER_POINTS[0]?.[1] ?? payload() };
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [...points, stranger] }]);
      return index;
    }

    it.each(FILTER_CASES)('%s', async (_title, filter, expected) => {
      const index = await seededIndex();
      const scope = { collections: [collection], filter };
      const want = [...expected].sort();
      expect(await index.count(scope)).toBe(want.length);
      expect(sortedIds(await index.searchVector({ ...scope, vector: randomVector(seeded(1), DIMENSIONS), limit: 50 }))).toEqual(want);
      expect(sortedIds(await index.searchKeyword({ ...scope, text: 'common', limit: 50 }))).toEqual(want);
      const hybrid = await index.searchHybrid({ ...scope, vector: randomVector(seeded(2), DIMENSIONS), text: 'common', limit: 50 });
      expect(sortedIds(hybrid)).toEqual(want);
    });

    it('deleteWhere honours the same filters', async () => {
      const index = await seededIndex();
      await ctx.store().write([{ op: 'deleteWhere', index: index.name, collections: [collection], filter: { $or: [{ tags: 'red' }, { 'metadata.year': { $gte: 2021 } }] } }]);
      expect(sortedIds(await index.searchKeyword({ collections: [collection], text: 'common', limit: 50 }))).toEqual(['f3', 'f5']);
    });

    it.each(INVALID_FILTERS)('refuses %s with a validation error', async (_title, filter) => {
      const index = await seededIndex();
      const scope = { collections: [collection], filter: filter as VectorFilter };
      const refused = async (operation: Promise<unknown>): Promise<void> => {
        await expect(operation).rejects.toBeInstanceOf(AppError);
        await expect(operation).rejects.toMatchObject({ code: 'validation' });
      };
      await refused(index.count(scope));
      await refused(index.searchVector({ ...scope, vector: randomVector(seeded(1), DIMENSIONS), limit: 5 }));
      await refused(index.searchKeyword({ ...scope, text: 'common', limit: 5 }));
      await refused(ctx.store().write([{ op: 'deleteWhere', index: index.name, collections: [collection], filter: filter as VectorFilter }]));
      expect(await index.count({ collections: [collection] })).toBe(FILTER_POINTS.length);
    });

    it('refuses filters nested too deep', async () => {
      const index = await seededIndex();
      let filter: VectorFilter = { content_id: 'c1' };
      for (let i = 0; i < 20; i++) filter = { $not: filter };
      await expect(index.count({ collections: [collection], filter })).rejects.toMatchObject({ code: 'validation' });
    });
  });
}
