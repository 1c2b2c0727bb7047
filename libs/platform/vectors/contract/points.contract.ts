import type { VectorIndex, VectorWrite } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { ids, point, randomVector, seeded, sortedIds } from './contract-context';

const DIMENSIONS = 8;

export function describePointsContract(ctx: ContractContext): void {
  describe('vectors: indexes and points', () => {
    const random = seeded(13);
    const vec = (): number[] => randomVector(random, DIMENSIONS);

    /** Every way a search can reach a point, for "never found again" checks. */
    async function findable(index: VectorIndex, collection: string, text: string, vector: number[]): Promise<string[]> {
      const scope = { collections: [collection] };
      const found = [
        ...ids(await index.searchVector({ ...scope, vector, limit: 100 })),
        ...ids(await index.searchKeyword({ ...scope, text, limit: 100 })),
        ...ids(await index.searchHybrid({ ...scope, vector, text, limit: 100 })),
      ];
      return [...new Set(found)].sort();
    }

    it('creates, lists and drops indexes; ensureIndex is idempotent and refuses a different shape', async () => {
      const store = ctx.store();
      const name = ctx.uniqueName('ix');
      await store.ensureIndex({ name, dimensions: 8, distance: 'cosine' });
      await store.ensureIndex({ name, dimensions: 8, distance: 'cosine' });
      expect(await store.listIndexes()).toContainEqual({ name, dimensions: 8, distance: 'cosine' });
      await expect(store.ensureIndex({ name, dimensions: 16, distance: 'cosine' })).rejects.toThrow();
      await expect(store.ensureIndex({ name, dimensions: 8, distance: 'euclidean' })).rejects.toThrow();
      await store.dropIndex(name);
      await store.dropIndex(name);
      expect((await store.listIndexes()).map((d) => d.name)).not.toContain(name);
      await expect(store.index(name).count({ collections: ['c'] })).rejects.toMatchObject({ code: 'not_found' });
    });

    it('refuses invalid index names and definitions', async () => {
      const store = ctx.store();
      for (const name of ['Upper', 'with-dash', 'with space', '', '_lead', 'semi;colon', 'x'.repeat(49)]) {
        await expect(store.ensureIndex({ name, dimensions: 4, distance: 'cosine' })).rejects.toMatchObject({ code: 'validation' });
        expect(() => store.index(name)).toThrow();
      }
      await expect(store.ensureIndex({ name: ctx.uniqueName('ix'), dimensions: 0, distance: 'cosine' })).rejects.toMatchObject({ code: 'validation' });
      await expect(store.ensureIndex({ name: ctx.uniqueName('ix'), dimensions: 4, distance: 'dot' as never })).rejects.toMatchObject({ code: 'validation' });
    });

    it('round-trips points: text, payload, collection, and the vector on request', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const collection = ctx.uniqueName('col');
      const rich = point('chunk-1', collection, vec(), 'Grüße, 世界 — "quoted" \'single\' \\ back', {
        content_id: 'doc-1',
        chunk_index: 7,
        source: 'report.pdf',
        tags: ['a', 'b'],
        metadata: { nested: { deep: [1, { x: null }] }, flag: false, ratio: 0.125, unicode: 'ß' },
      });
      const plain = point('chunk-2', collection, vec());
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [rich, plain] }]);
      const got = await index.get(['chunk-2', 'missing', 'chunk-1']);
      expect(got.map((p) => p.id)).toEqual(['chunk-2', 'chunk-1']);
      expect(got[1]).toEqual({ id: 'chunk-1', collectionId: collection, text: rich.text, payload: rich.payload });
      const [withVector] = await index.get(['chunk-1'], { withVector: true });
      // Cosine indexes keep vectors at unit length (as Qdrant does).
      const norm = Math.sqrt(Array.from(rich.vector).reduce((s, x) => s + x * x, 0));
      withVector?.vector?.forEach((x, i) => expect(x).toBeCloseTo((rich.vector[i] ?? 0) / norm, 5));
      expect(withVector?.vector).toHaveLength(DIMENSIONS);
      expect(await index.count({ collections: [collection] })).toBe(2);
    });

    it('an upsert replaces the whole point: text, payload, vector, even its collection', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const [a, b] = [ctx.uniqueName('a'), ctx.uniqueName('b')];
      const first = point('p', a, vec(), 'original zebra words', { content_id: 'c-old', tags: ['old'], metadata: { v: 1 } });
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [first] }]);
      const second = point('p', b, vec(), 'replacement giraffe words', { content_id: 'c-new', metadata: { w: 2 } });
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [second] }]);
      expect(await index.get(['p'])).toEqual([{ id: 'p', collectionId: b, text: second.text, payload: second.payload }]);
      expect(await findable(index, a, 'zebra', [...first.vector])).toEqual([]);
      expect(ids(await index.searchKeyword({ collections: [b], text: 'zebra', limit: 5 }))).toEqual([]);
      expect(ids(await index.searchKeyword({ collections: [b], text: 'giraffe', limit: 5 }))).toEqual(['p']);
      const [nearest] = await index.searchVector({ collections: [b], vector: second.vector, limit: 1 });
      expect(nearest?.score).toBeCloseTo(1, 5);
      expect(await index.count({ collections: [b], filter: { content_id: 'c-old' } })).toBe(0);
      expect(await index.count({ collections: [b], filter: { content_id: 'c-new' } })).toBe(1);
    });

    it('deletes by id; deleting a missing id does nothing', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const collection = ctx.uniqueName('col');
      const [p1, p2] = [point('p1', collection, vec(), 'walrus one'), point('p2', collection, vec(), 'walrus two')];
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [p1, p2] }]);
      await ctx.store().write([{ op: 'delete', index: index.name, ids: ['p1', 'never-there'] }]);
      expect(await index.get(['p1', 'p2'])).toHaveLength(1);
      expect(await findable(index, collection, 'walrus', [...p1.vector])).toEqual(['p2']);
    });

    it('setPayload replaces the given fields, keeps vector and text, and filters see the change', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const collection = ctx.uniqueName('col');
      const p = point('p', collection, vec(), 'kept text', { content_id: 'c1', chunk_index: 1, source: 's', tags: ['x'], metadata: { old: true } });
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [p] }]);
      await ctx.store().write([
        { op: 'setPayload', index: index.name, ids: ['p', 'missing'], payload: { metadata: { new: 1 }, content_id: 'c2', chunk_index: 4, source: null } },
      ]);
      expect(await index.get(['p'])).toEqual([{ id: 'p', collectionId: collection, text: 'kept text', payload: { content_id: 'c2', chunk_index: 4, source: null, tags: ['x'], metadata: { new: 1 } } }]);
      const scope = { collections: [collection] };
      for (const filter of [{ content_id: 'c2' }, { chunk_index: 4 }, { source: null }, { 'metadata.new': 1 }]) {
        expect(ids(await index.searchVector({ ...scope, filter, vector: p.vector, limit: 3 }))).toEqual(['p']);
      }
      for (const filter of [{ content_id: 'c1' }, { chunk_index: 1 }, { source: 's' }, { 'metadata.old': true }]) {
        expect(ids(await index.searchVector({ ...scope, filter, vector: p.vector, limit: 3 }))).toEqual([]);
      }
      expect(ids(await index.searchKeyword({ ...scope, text: 'kept', limit: 3 }))).toEqual(['p']);
      expect(await index.get(['missing'])).toEqual([]);
    });

    it('keeps collections apart: a search never returns another collection’s point', async () => {
      const index = await ctx.newIndex(DIMENSIONS);
      const [a, b] = [ctx.uniqueName('a'), ctx.uniqueName('b')];
      const shared = vec();
      await ctx.store().write([
        {
          op: 'upsert',
          index: index.name,
          points: [point('in-a', a, shared, 'identical words'), point('in-b', b, shared, 'identical words'), ...Array.from({ length: 30 }, (_, i) => point(`b${i}`, b, vec(), 'identical words'))],
        },
      ]);
      expect(await findable(index, a, 'identical', shared)).toEqual(['in-a']);
      expect(await index.count({ collections: [a] })).toBe(1);
      const both = await index.searchVector({ collections: [a, b], vector: shared, limit: 2 });
      expect(sortedIds(both)).toEqual(['in-a', 'in-b']);
    });

    it('deleteWhere by collection and by content: their text is never found again, in any index', async () => {
      const store = ctx.store();
      const [one, two] = [await ctx.newIndex(DIMENSIONS), await ctx.newIndex(DIMENSIONS)];
      const [gone, kept] = [ctx.uniqueName('gone'), ctx.uniqueName('kept')];
      const v = vec();
      const batch = (index: VectorIndex): VectorWrite => ({
        op: 'upsert',
        index: index.name,
        points: [
          point(`${index.name}-g1`, gone, v, 'secret pelican', { content_id: 'x' }),
          point(`${index.name}-g2`, gone, vec(), 'secret pelican', { content_id: 'y' }),
          point(`${index.name}-k1`, kept, v, 'secret pelican', { content_id: 'x' }),
          point(`${index.name}-k2`, kept, vec(), 'secret pelican', { content_id: 'y' }),
        ],
      });
      await store.write([batch(one), batch(two)]);

      // A content: one index named.
      await store.write([{ op: 'deleteWhere', index: one.name, collections: [kept], filter: { content_id: 'x' } }]);
      expect(await findable(one, kept, 'pelican', v)).toEqual([`${one.name}-k2`]);
      expect(await findable(two, kept, 'pelican', v)).toEqual([`${two.name}-k1`, `${two.name}-k2`]);

      // A collection: every index.
      await store.write([{ op: 'deleteWhere', collections: [gone] }]);
      for (const index of [one, two]) {
        expect(await findable(index, gone, 'pelican', v)).toEqual([]);
        expect(await index.count({ collections: [gone] })).toBe(0);
        expect(await index.get([`${index.name}-g1`, `${index.name}-g2`])).toEqual([]);
      }
      expect(await two.count({ collections: [kept] })).toBe(2);
    });

    it('refuses invalid points and queries without writing anything', async () => {
      const store = ctx.store();
      const index = await ctx.newIndex(DIMENSIONS);
      const collection = ctx.uniqueName('col');
      const good = point('good', collection, vec());
      const bad = [
        point('short', collection, [1, 2, 3]),
        point('nan', collection, [...vec().slice(1), Number.NaN]),
        point('zero', collection, new Array<number>(DIMENSIONS).fill(0)),
        point('', collection, vec()),
        point('no-collection', '', vec()),
        { ...point('bad-payload', collection, vec()), payload: { ...good.payload, chunk_index: -1 } },
        { ...point('bad-tags', collection, vec()), payload: { ...good.payload, tags: [1] as unknown as string[] } },
        { ...point('bad-metadata', collection, vec()), payload: { ...good.payload, metadata: [] as unknown as Record<string, never> } },
      ];
      for (const p of bad) await expect(store.write([{ op: 'upsert', index: index.name, points: [good, p] }])).rejects.toMatchObject({ code: 'validation' });
      await expect(store.write([{ op: 'upsert', index: ctx.uniqueName('missing'), points: [good] }])).rejects.toMatchObject({ code: 'not_found' });
      expect(await index.count({ collections: [collection] })).toBe(0);

      const v = vec();
      for (const query of [
        index.searchVector({ collections: [], vector: v, limit: 5 }),
        index.searchVector({ collections: [collection], vector: v, limit: 0 }),
        index.searchVector({ collections: [collection], vector: v, limit: 4097 }),
        index.searchVector({ collections: [collection], vector: [1, 2], limit: 5 }),
        index.searchKeyword({ collections: [collection], text: 'x', limit: 1.5 }),
        index.count({ collections: [''] }),
      ]) {
        await expect(query).rejects.toMatchObject({ code: 'validation' });
      }
    });
  });
}
