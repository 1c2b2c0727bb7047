import type { ContractContext } from './contract-context';

export function describeWritesContract(ctx: ContractContext): void {
  describe('documents: batched writes, checkpoints, reset, purge', () => {
    it('applies a batch across collections in order, then records the checkpoint', async () => {
      const store = ctx.store();
      const [a, b, checkpoint] = [ctx.uniqueName('a'), ctx.uniqueName('b'), ctx.uniqueName('cp')];
      await store.collection(a).upsert({ id: 'stale', kind: 'old' });
      await store.write(
        [
          { collection: a, op: 'upsert', doc: { id: 'x', v: 1, kind: 'new' } },
          { collection: b, op: 'upsert', doc: { id: 'y', v: 2 } },
          { collection: a, op: 'upsert', doc: { id: 'x', v: 3, kind: 'new' } },
          { collection: a, op: 'upsert', doc: { id: 'z', v: 4, kind: 'new' } },
          { collection: a, op: 'deleteMany', filter: { kind: 'old' } },
          { collection: a, op: 'delete', id: 'z' },
          { collection: b, op: 'delete', id: 'never-existed' },
        ],
        { name: checkpoint, value: '42' },
      );
      expect((await store.collection(a).find()).items).toEqual([{ id: 'x', v: 3, kind: 'new' }]);
      expect((await store.collection(b).find()).items).toEqual([{ id: 'y', v: 2 }]);
      expect(await store.getCheckpoint(checkpoint)).toBe('42');
    });

    it('returns null for a checkpoint never written', async () => {
      expect(await ctx.store().getCheckpoint(ctx.uniqueName('cp'))).toBeNull();
    });

    it('overwrites a checkpoint, keeps checkpoints apart, and accepts a batch without one', async () => {
      const store = ctx.store();
      const docs = ctx.uniqueName();
      const [one, two] = [ctx.uniqueName('cp'), ctx.uniqueName('cp')];
      await store.write([], { name: one, value: '1' });
      await store.write([{ collection: docs, op: 'upsert', doc: { id: 'a' } }], { name: one, value: '{"commit":7,"prepare":7}' });
      await store.write([{ collection: docs, op: 'upsert', doc: { id: 'b' } }], { name: two, value: '9' });
      await store.write([{ collection: docs, op: 'upsert', doc: { id: 'c' } }]);
      expect(await store.getCheckpoint(one)).toBe('{"commit":7,"prepare":7}');
      expect(await store.getCheckpoint(two)).toBe('9');
      expect(await store.collection(docs).count()).toBe(3);
    });

    it('reset empties the named collections and drops their checkpoint, leaving everything else', async () => {
      const store = ctx.store();
      const [a, b, kept] = [ctx.uniqueName('a'), ctx.uniqueName('b'), ctx.uniqueName('kept')];
      const [checkpoint, other] = [ctx.uniqueName('cp'), ctx.uniqueName('cp')];
      await store.write(
        [
          { collection: a, op: 'upsert', doc: { id: '1' } },
          { collection: b, op: 'upsert', doc: { id: '2' } },
          { collection: kept, op: 'upsert', doc: { id: '3' } },
        ],
        { name: checkpoint, value: '100' },
      );
      await store.write([], { name: other, value: '5' });
      await store.collection(a).ensureIndex(['v']);

      await store.reset([a, b, ctx.uniqueName('never_used')], checkpoint);

      expect(await store.collection(a).count()).toBe(0);
      expect(await store.collection(b).count()).toBe(0);
      expect(await store.collection(kept).count()).toBe(1);
      expect(await store.getCheckpoint(checkpoint)).toBeNull();
      expect(await store.getCheckpoint(other)).toBe('5');
      // A rebuild writes straight into the emptied collections.
      await store.write([{ collection: a, op: 'upsert', doc: { id: '1', v: 2 } }], { name: checkpoint, value: '1' });
      expect((await store.collection(a).find({ filter: { v: 2 } })).items).toEqual([{ id: '1', v: 2 }]);
      expect(await store.getCheckpoint(checkpoint)).toBe('1');
    });

    it('purgeDeleted keeps live documents intact', async () => {
      const store = ctx.store();
      const docs = store.collection(ctx.uniqueName());
      await docs.upsert({ id: 'keep', secret: 'no' });
      await docs.upsert({ id: 'gone', secret: 'yes' });
      await docs.delete('gone');
      await store.purgeDeleted();
      expect((await docs.find()).items).toEqual([{ id: 'keep', secret: 'no' }]);
    });

    it('rejects a batch naming an invalid collection', async () => {
      const store = ctx.store();
      await expect(store.write([{ collection: 'Not Valid', op: 'upsert', doc: { id: 'a' } }])).rejects.toThrow();
    });
  });
}
