import type { Doc } from '@lore/platform/documents/port';
import type { ContractContext } from './contract-context';

export function describeCrudContract(ctx: ContractContext): void {
  describe('documents: get, upsert, delete', () => {
    const rich: Doc = {
      id: 'doc-1',
      title: 'Grüße, 世界 — "quoted" \'single\' \\ back',
      count: 3,
      ratio: 0.125,
      negative: -42,
      flag: false,
      nothing: null,
      tags: ['a', 'b', 'a'],
      matrix: [[1, 2], [3]],
      nested: { deep: { value: 'x', list: [{ k: 1 }, { k: 2 }] }, empty: {} },
    };

    it('returns null for a document that does not exist', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      expect(await docs.get('missing')).toBeNull();
    });

    it('round-trips a document with nested objects, arrays, nulls, booleans and unicode', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      await docs.upsert(rich);
      expect(await docs.get('doc-1')).toEqual(rich);
    });

    it('replaces the whole document on upsert, dropping fields the new version lacks', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      await docs.upsert(rich);
      await docs.upsert({ id: 'doc-1', title: 'second' });
      expect(await docs.get('doc-1')).toEqual({ id: 'doc-1', title: 'second' });
      expect(await docs.count()).toBe(1);
    });

    it('deletes by id, reporting whether a document was there', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      await docs.upsert({ id: 'a', v: 1 });
      await docs.upsert({ id: 'b', v: 2 });
      expect(await docs.delete('a')).toBe(true);
      expect(await docs.delete('a')).toBe(false);
      expect(await docs.get('a')).toBeNull();
      expect(await docs.get('b')).toEqual({ id: 'b', v: 2 });
    });

    it('deleteMany removes the matching documents and returns how many', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      for (let i = 0; i < 6; i++) await docs.upsert({ id: `d${i}`, parity: i % 2 === 0 ? 'even' : 'odd', i });
      expect(await docs.deleteMany({ parity: 'even' })).toBe(3);
      expect(await docs.deleteMany({ parity: 'even' })).toBe(0);
      expect((await docs.find()).items.map((d) => d.id)).toEqual(['d1', 'd3', 'd5']);
      expect(await docs.deleteMany({ i: { $gte: 3 } })).toBe(2);
      expect(await docs.deleteMany({})).toBe(1);
      expect(await docs.count()).toBe(0);
    });

    it('counts all documents or the ones matching a filter', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      expect(await docs.count()).toBe(0);
      for (let i = 0; i < 5; i++) await docs.upsert({ id: `d${i}`, small: i < 2 });
      expect(await docs.count()).toBe(5);
      expect(await docs.count({ small: true })).toBe(2);
    });

    it('keeps collections apart: the same id lives independently in two collections', async () => {
      const store = ctx.store();
      const left = store.collection(ctx.uniqueName('left'));
      const right = store.collection(ctx.uniqueName('right'));
      await left.upsert({ id: 'same', side: 'left' });
      await right.upsert({ id: 'same', side: 'right' });
      await left.delete('same');
      expect(await left.get('same')).toBeNull();
      expect(await right.get('same')).toEqual({ id: 'same', side: 'right' });
    });

    it('refuses collection names outside [a-z0-9_]', () => {
      const store = ctx.store();
      for (const bad of ['Upper', 'with-dash', 'with space', 'semi;colon', '', 'dot.ted', 'quote"d']) {
        expect(() => store.collection(bad)).toThrow();
      }
    });

    it('ensureIndex is idempotent and leaves queries working', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      await docs.ensureIndex(['owner', 'meta.created']);
      await docs.ensureIndex(['owner', 'meta.created']);
      await docs.ensureIndex(['id']);
      await docs.upsert({ id: 'x', owner: 'u1', meta: { created: '2024-01-01' } });
      await docs.upsert({ id: 'y', owner: 'u2', meta: { created: '2024-01-02' } });
      const page = await docs.find({ filter: { owner: 'u1' }, sort: [['meta.created', 'desc']] });
      expect(page.items.map((d) => d.id)).toEqual(['x']);
    });
  });
}
