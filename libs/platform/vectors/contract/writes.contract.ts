import { randomBytes } from 'node:crypto';
import type { StoredPoint, VectorIndex, VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { storedVector } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { ids, point, randomVector, seeded } from './contract-context';

const DIMENSIONS = 8;

export function describeWritesContract(ctx: ContractContext): void {
  describe('vectors: batched writes, checkpoints, replay, reset, purge', () => {
    const random = seeded(17);
    const vec = (): number[] => randomVector(random, DIMENSIONS);

    async function snapshot(indexes: readonly VectorIndex[], collection: string, wanted: readonly string[]): Promise<unknown> {
      const out: Record<string, { points: StoredPoint[]; count: number; keyword: string[] }> = {};
      for (const index of indexes) {
        out[index.name] = {
          points: await index.get(wanted),
          count: await index.count({ collections: [collection] }),
          keyword: ids(await index.searchKeyword({ collections: [collection], text: 'batch', limit: 50 })),
        };
      }
      return out;
    }

    it('applies a batch across indexes in order, then records the checkpoint', async () => {
      const store = ctx.store();
      const [one, two] = [await ctx.newIndex(DIMENSIONS), await ctx.newIndex(DIMENSIONS)];
      const collection = ctx.uniqueName('col');
      const checkpoint = ctx.uniqueName('cp');
      await store.write(
        [
          { op: 'upsert', index: one.name, points: [point('a', collection, vec(), 'batch first'), point('b', collection, vec(), 'batch b')] },
          { op: 'upsert', index: two.name, points: [point('x', collection, vec(), 'batch x')] },
          { op: 'upsert', index: one.name, points: [point('a', collection, vec(), 'batch second')] },
          { op: 'delete', index: one.name, ids: ['b'] },
          { op: 'setPayload', index: one.name, ids: ['a'], payload: { tags: ['set'] } },
        ],
        { name: checkpoint, value: '42' },
      );
      expect(await one.get(['a', 'b'])).toEqual([{ id: 'a', collectionId: collection, text: 'batch second', payload: { content_id: 'content-1', chunk_index: 0, source: null, tags: ['set'], metadata: {} } }]);
      expect(ids(await two.get(['x']))).toEqual(['x']);
      expect(await store.getCheckpoint(checkpoint)).toBe('42');
    });

    it('returns null for a checkpoint never written, overwrites one, keeps them apart, accepts a batch without one', async () => {
      const store = ctx.store();
      const index = await ctx.newIndex(DIMENSIONS);
      const [one, two] = [ctx.uniqueName('cp'), ctx.uniqueName('cp')];
      expect(await store.getCheckpoint(one)).toBeNull();
      await store.write([], { name: one, value: '1' });
      await store.write([{ op: 'upsert', index: index.name, points: [point('a', 'c', vec())] }], { name: one, value: '7:7' });
      await store.write([], { name: two, value: '9' });
      await store.write([{ op: 'upsert', index: index.name, points: [point('b', 'c', vec())] }]);
      expect(await store.getCheckpoint(one)).toBe('7:7');
      expect(await store.getCheckpoint(two)).toBe('9');
      expect(await index.count({ collections: ['c'] })).toBe(2);
    });

    it('replaying batches after a crash converges on the same state (every write is idempotent)', async () => {
      const store = ctx.store();
      const [one, two] = [await ctx.newIndex(DIMENSIONS), await ctx.newIndex(DIMENSIONS)];
      const collection = ctx.uniqueName('col');
      const checkpoint = ctx.uniqueName('cp');
      const first: VectorWrite[] = [
        { op: 'upsert', index: one.name, points: [point('p1', collection, vec(), 'batch one', { content_id: 'c1' }), point('p2', collection, vec(), 'batch two', { content_id: 'c2' })] },
        { op: 'upsert', index: two.name, points: [point('q1', collection, vec(), 'batch q', { content_id: 'c1' })] },
      ];
      const second: VectorWrite[] = [
        { op: 'delete', index: one.name, ids: ['p1'] },
        { op: 'setPayload', index: one.name, ids: ['p2'], payload: { metadata: { edited: true } } },
        { op: 'deleteWhere', collections: [collection], filter: { content_id: 'c1' } },
        { op: 'upsert', index: one.name, points: [point('p3', collection, vec(), 'batch three', { content_id: 'c3' })] },
      ];
      const wanted = ['p1', 'p2', 'p3', 'q1'];
      await store.write(first, { name: checkpoint, value: '1' });
      await store.write(second, { name: checkpoint, value: '2' });
      const expected = await snapshot([one, two], collection, wanted);

      // The checkpoint was lost (or never written): both batches are applied again.
      await store.write(first, { name: checkpoint, value: '1' });
      await store.write(second, { name: checkpoint, value: '2' });
      expect(await snapshot([one, two], collection, wanted)).toEqual(expected);
      // Only the last batch again.
      await store.write(second, { name: checkpoint, value: '2' });
      expect(await snapshot([one, two], collection, wanted)).toEqual(expected);
      expect(await store.getCheckpoint(checkpoint)).toBe('2');
    });

    it('a batch refused by validation changes nothing, its checkpoint included', async () => {
      const store = ctx.store();
      const index = await ctx.newIndex(DIMENSIONS);
      const checkpoint = ctx.uniqueName('cp');
      await store.write([{ op: 'upsert', index: index.name, points: [point('keep', 'c', vec(), 'batch kept')] }], { name: checkpoint, value: '1' });
      const refused = store.write(
        [
          { op: 'delete', index: index.name, ids: ['keep'] },
          { op: 'upsert', index: index.name, points: [point('new', 'c', vec())] },
          { op: 'deleteWhere', index: index.name, collections: ['c'], filter: { 'metadata.x': { $bogus: 1 } } },
        ],
        { name: checkpoint, value: '2' },
      );
      await expect(refused).rejects.toMatchObject({ code: 'validation' });
      expect(ids(await index.get(['keep', 'new']))).toEqual(['keep']);
      expect(await store.getCheckpoint(checkpoint)).toBe('1');
    });

    it('reset empties the named indexes and drops their checkpoint, leaving everything else', async () => {
      const store = ctx.store();
      const [reset, kept] = [await ctx.newIndex(DIMENSIONS), await ctx.newIndex(DIMENSIONS, 'euclidean')];
      const [checkpoint, other] = [ctx.uniqueName('cp'), ctx.uniqueName('cp')];
      const p = point('p', 'c', vec(), 'batch words');
      await store.write(
        [
          { op: 'upsert', index: reset.name, points: [p] },
          { op: 'upsert', index: kept.name, points: [p] },
        ],
        { name: checkpoint, value: '100' },
      );
      await store.write([], { name: other, value: '5' });

      await store.reset([reset.name, ctx.uniqueName('never_created')], checkpoint);

      expect(await reset.count({ collections: ['c'] })).toBe(0);
      expect(await reset.searchKeyword({ collections: ['c'], text: 'batch', limit: 5 })).toEqual([]);
      expect(await kept.count({ collections: ['c'] })).toBe(1);
      expect(await store.getCheckpoint(checkpoint)).toBeNull();
      expect(await store.getCheckpoint(other)).toBe('5');
      expect(await store.listIndexes()).toContainEqual({ name: reset.name, dimensions: DIMENSIONS, distance: 'cosine' });
      // A rebuild writes straight into the emptied index.
      await store.write([{ op: 'upsert', index: reset.name, points: [p] }], { name: checkpoint, value: '1' });
      expect(ids(await reset.searchVector({ collections: ['c'], vector: p.vector, limit: 5 }))).toEqual(['p']);
      expect(await store.getCheckpoint(checkpoint)).toBe('1');
    });

    it('purgeDeleted keeps live points intact', async () => {
      const store = ctx.store();
      const index = await ctx.newIndex(DIMENSIONS);
      await store.write([{ op: 'upsert', index: index.name, points: [point('keep', 'c', vec(), 'batch keep'), point('gone', 'c', vec(), 'batch gone')] }]);
      await store.write([{ op: 'delete', index: index.name, ids: ['gone'] }]);
      await store.purgeDeleted();
      expect(ids(await index.searchKeyword({ collections: ['c'], text: 'batch', limit: 5 }))).toEqual(['keep']);
      expect(ids(await index.get(['keep', 'gone']))).toEqual(['keep']);
    });

    describe('physical deletion (adapters whose files the suite can read)', () => {
      type Removal = (store: VectorStore, index: string, collection: string) => Promise<void>;
      const CASES: ReadonlyArray<readonly [string, 'everywhere' | 'payload', Removal]> = [
        ['delete', 'everywhere', (s, index) => s.write([{ op: 'delete', index, ids: ['secret'] }])],
        ['deleteWhere by collection, every index', 'everywhere', (s, _index, collection) => s.write([{ op: 'deleteWhere', collections: [collection] }])],
        ['deleteWhere by content', 'everywhere', (s, index, collection) => s.write([{ op: 'deleteWhere', index, collections: [collection], filter: { content_id: 'secret-content' } }], { name: 'cp', value: '2' })],
        ['replacement by a new version', 'everywhere', (s, index, collection) => s.write([{ op: 'upsert', index, points: [point('secret', collection, [1, 0, 0, 0, 0, 0, 0, 0], 'redacted', { content_id: 'secret-content' })] }])],
        ['setPayload of new metadata and source', 'payload', (s, index) => s.write([{ op: 'setPayload', index, ids: ['secret'], payload: { metadata: { note: 'redacted' }, source: null } }])],
        ['reset', 'everywhere', (s, index) => s.reset([index], 'cp')],
        ['dropIndex', 'everywhere', (s, index) => s.dropIndex(index)],
      ];

      it.each(CASES)('leaves no byte of a point removed by %s in the files after purgeDeleted', async (_title, where, remove) => {
        const fixture = ctx.fixture();
        const files = fixture.files?.bind(fixture);
        if (files === undefined) return; // a server's files are not the adapter's to read (see the adapter's purgeDeleted)
        const store = ctx.store();
        const index = await ctx.newIndex(DIMENSIONS);
        const other = await ctx.newIndex(DIMENSIONS);
        const collection = ctx.uniqueName('col');
        // Lower-case letters and digits: one FTS5 token, unchanged by stemming. The scan looks for its
        // tail, which survives FTS5's prefix compression of neighbouring terms.
        const tail = randomBytes(8).toString('hex');
        const marker = `zq${tail}`;
        const vector = vec();
        const text = where === 'everywhere' ? `${`${marker} `.repeat(600)}end` : 'ordinary words';
        const secret = point('secret', collection, vector, text, {
          content_id: 'secret-content',
          source: `${marker}.pdf`,
          tags: where === 'everywhere' ? [marker] : [],
          metadata: { note: `${marker} `.repeat(50) },
        });
        const filler = Array.from({ length: 50 }, (_, i) => point(`filler-${i}`, collection, vec(), `filler words number ${i} `.repeat(20)));
        await store.write([
          { op: 'upsert', index: index.name, points: [...filler, secret] },
          { op: 'upsert', index: other.name, points: [point('untouched', ctx.uniqueName('col'), vec(), 'still here')] },
        ]);
        // Checkpoint once so that the marker also sits in the main file, as long-lived data would.
        await store.purgeDeleted();
        const vectorBytes = Buffer.from(storedVector(vector, 'cosine').buffer);
        expect(files().includes(tail)).toBe(true);
        if (where === 'everywhere') expect(files().includes(vectorBytes)).toBe(true);

        await remove(store, index.name, collection);
        await store.purgeDeleted();

        expect(files().includes(tail)).toBe(false);
        if (where === 'everywhere') expect(files().includes(vectorBytes)).toBe(false);
        expect(ids(await other.get(['untouched']))).toEqual(['untouched']);
      });
    });
  });
}
