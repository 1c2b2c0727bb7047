import type { Doc, DocumentCollection, Filter } from '@lore/platform/documents/port';
import type { ContractContext } from './contract-context';

/**
 * `$text` word search. Cases stay where SQLite's FTS5 (porter) and MongoDB's `english` text
 * index agree: query words free of English stop words, stemming asserted from the short form
 * ("run" finds "running"), never from the long one (documented on the port's Filter).
 */
export function describeTextContract(ctx: ContractContext): void {
  describe('documents: $text word search', () => {
    async function indexed(docs: readonly Doc[], field = 'text'): Promise<DocumentCollection> {
      const collection = ctx.store().collection(ctx.uniqueName('text'));
      await collection.ensureTextIndex(field);
      for (const doc of docs) await collection.upsert(doc);
      return collection;
    }

    async function ids(collection: DocumentCollection, filter: Filter): Promise<string[]> {
      const page = await collection.find({ filter, sort: [['id', 'asc']] });
      return page.items.map((doc) => doc.id);
    }

    it('finds the documents holding every word, in any order, and is declared idempotently', async () => {
      const collection = await indexed([
        { id: 'a', text: 'quick brown fox' },
        { id: 'b', text: 'brown bear sleeps' },
        { id: 'c', text: 'fox meets hound' },
        { id: 'd', other: 'brown fox' },
        { id: 'e', text: 42 },
      ]);
      await collection.ensureTextIndex('text');
      expect(await ids(collection, { $text: 'brown' })).toEqual(['a', 'b']);
      expect(await ids(collection, { $text: 'fox brown' })).toEqual(['a']);
      expect(await ids(collection, { $text: 'hound   fox' })).toEqual(['c']);
      expect(await ids(collection, { $text: 'fox wolf' })).toEqual([]);
      expect(await collection.count({ $text: 'fox' })).toBe(2);
    });

    it('matches whole words, ignoring case and diacritics', async () => {
      const collection = await indexed([
        { id: 'a', text: 'Café crème' },
        { id: 'b', text: 'CAFE noir' },
        { id: 'c', text: 'cafeteria lunch' },
      ]);
      expect(await ids(collection, { $text: 'CAFÉ' })).toEqual(['a', 'b']);
      expect(await ids(collection, { $text: 'cafe' })).toEqual(['a', 'b']);
      expect(await ids(collection, { $text: 'creme CAFÉ' })).toEqual(['a']);
      expect(await ids(collection, { $text: 'Noir' })).toEqual(['b']);
      expect(await ids(collection, { $text: 'lunch' })).toEqual(['c']);
    });

    it('stems English words', async () => {
      const collection = await indexed([
        { id: 'a', text: 'She was running late' },
        { id: 'b', text: 'he runs daily' },
        { id: 'c', text: 'a rerun tonight' },
        { id: 'd', text: 'they ran away' },
      ]);
      expect(await ids(collection, { $text: 'run' })).toEqual(['a', 'b']);
      expect(await ids(collection, { $text: 'RUN daily' })).toEqual(['b']);
    });

    it('indexes the documents already present and searches a nested field', async () => {
      const collection = ctx.store().collection(ctx.uniqueName('text'));
      await collection.upsert({ id: 'a', meta: { body: 'orchard apples ripen' } });
      await collection.upsert({ id: 'b', meta: { body: 'pears ripen slowly' } });
      await collection.upsert({ id: 'c', meta: 'not an object' });
      await collection.ensureTextIndex('meta.body');
      await collection.upsert({ id: 'd', meta: { body: 'apples fall' } });
      expect(await ids(collection, { $text: 'ripen' })).toEqual(['a', 'b']);
      expect(await ids(collection, { $text: 'apples' })).toEqual(['a', 'd']);
    });

    it('combines with other conditions, sort, limit, skip, cursors and count', async () => {
      const docs: Doc[] = Array.from({ length: 12 }, (_, k) => ({
        id: `m${String(k).padStart(2, '0')}`,
        workspace: k % 3 === 0 ? 'w2' : 'w1',
        created: `2024-01-${String(10 + ((k * 7) % 12)).padStart(2, '0')}`,
        text: k % 2 === 0 ? `alpha report number ${k}` : `beta report number ${k}`,
        n: k,
      }));
      const collection = await indexed(docs);
      const filter: Filter = { workspace: 'w1', $text: 'REPORT alpha' };
      const expected = docs
        .filter((doc) => doc['workspace'] === 'w1' && String(doc['text']).startsWith('alpha'))
        .sort((x, y) => String(y['created']).localeCompare(String(x['created'])))
        .map((doc) => doc.id);
      expect(expected).toEqual(['m10', 'm08', 'm04', 'm02']);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<DocumentCollection['find']>> = await collection.find({ filter, sort: [['created', 'desc']], limit: 3, ...(cursor ? { cursor } : {}) });
        seen.push(...page.items.map((doc) => doc.id));
        cursor = page.nextCursor;
      } while (cursor);
      expect(seen).toEqual(expected);
      expect((await collection.find({ filter, sort: [['created', 'desc']], skip: 1, limit: 2 })).items.map((doc) => doc.id)).toEqual(['m08', 'm04']);
      expect(await collection.count(filter)).toBe(4);
      expect(await collection.count({ $text: 'report' })).toBe(12);
      expect(await ids(collection, { $text: 'beta', $or: [{ n: 1 }, { n: 3 }, { n: 4 }] })).toEqual(['m01', 'm03']);
      expect(await ids(collection, { $text: 'beta', n: { $gte: 9 } })).toEqual(['m09', 'm11']);
    });

    it('follows replacements: old words stop matching, new words match', async () => {
      const collection = await indexed([
        { id: 'a', text: 'orange sunset', tag: 1 },
        { id: 'b', text: 'orange juice', tag: 1 },
      ]);
      await collection.upsert({ id: 'a', text: 'violet dawn', tag: 1 });
      await collection.upsert({ id: 'b', text: 'orange juice', tag: 2 });
      expect(await ids(collection, { $text: 'orange' })).toEqual(['b']);
      expect(await ids(collection, { $text: 'sunset' })).toEqual([]);
      expect(await ids(collection, { $text: 'violet dawn' })).toEqual(['a']);
      await collection.upsert({ id: 'b', tag: 3 });
      expect(await ids(collection, { $text: 'orange' })).toEqual([]);
      await collection.upsert({ id: 'b', text: 'orange again', tag: 4 });
      expect(await ids(collection, { $text: 'orange' })).toEqual(['b']);
    });

    it('forgets deleted documents, and deleteMany takes $text', async () => {
      const collection = await indexed([
        { id: 'a', text: 'green apple', kind: 'x' },
        { id: 'b', text: 'green pear', kind: 'y' },
        { id: 'c', text: 'green grape', kind: 'x' },
        { id: 'd', text: 'red apple', kind: 'x' },
      ]);
      expect(await collection.delete('a')).toBe(true);
      expect(await ids(collection, { $text: 'apple' })).toEqual(['d']);
      expect(await collection.deleteMany({ kind: 'y' })).toBe(1);
      expect(await ids(collection, { $text: 'green' })).toEqual(['c']);
      expect(await collection.deleteMany({ $text: 'green grape', kind: 'x' })).toBe(1);
      expect(await ids(collection, { $text: 'green' })).toEqual([]);
      expect(await ids(collection, {})).toEqual(['d']);
      // A document written again under a deleted id is found by its new words only.
      await collection.upsert({ id: 'a', text: 'yellow lemon' });
      expect(await ids(collection, { $text: 'lemon' })).toEqual(['a']);
      expect(await ids(collection, { $text: 'apple' })).toEqual(['d']);
      // The newest document deleted, then another written: engines that reuse row slots must not mix them up.
      await collection.upsert({ id: 'z', text: 'purple plum' });
      await collection.delete('z');
      await collection.upsert({ id: 'y', text: 'blue sky' });
      expect(await ids(collection, { $text: 'plum' })).toEqual([]);
      expect(await ids(collection, { $text: 'sky' })).toEqual(['y']);
    });

    it('stays in step with write() batches and reset()', async () => {
      const store = ctx.store();
      const name = ctx.uniqueName('text');
      const checkpoint = ctx.uniqueName('cp');
      await store.collection(name).ensureTextIndex('text');
      await store.write(
        [
          { collection: name, op: 'upsert', doc: { id: 'a', text: 'silver moon', kind: 'x' } },
          { collection: name, op: 'upsert', doc: { id: 'b', text: 'silver star', kind: 'y' } },
          { collection: name, op: 'upsert', doc: { id: 'c', text: 'golden moon', kind: 'x' } },
          { collection: name, op: 'upsert', doc: { id: 'a', text: 'bronze moon', kind: 'x' } },
          { collection: name, op: 'delete', id: 'c' },
          { collection: name, op: 'deleteMany', filter: { $text: 'star' } },
        ],
        { name: checkpoint, value: '1' },
      );
      const collection = store.collection(name);
      expect(await ids(collection, { $text: 'moon' })).toEqual(['a']);
      expect(await ids(collection, { $text: 'silver' })).toEqual([]);
      expect(await collection.count()).toBe(1);

      await store.reset([name], checkpoint);
      expect(await ids(collection, { $text: 'moon' })).toEqual([]);
      expect(await collection.count({ $text: 'bronze' })).toBe(0);
      await store.write([{ collection: name, op: 'upsert', doc: { id: 'z', text: 'moon again' } }], { name: checkpoint, value: '2' });
      expect(await ids(collection, { $text: 'moon' })).toEqual(['z']);
      expect(await collection.count({ $text: 'bronze' })).toBe(0);
    });

    it('treats quotes, punctuation and search operators as plain words, never as syntax', async () => {
      const collection = await indexed([
        { id: 'a', text: 'AND gate logic' },
        { id: 'b', text: 'NEAR field radio' },
        { id: 'c', text: 'col term mix' },
        { id: 'd', text: 'star * rating' },
        { id: 'e', text: 'stardust memory' },
        { id: 'f', text: 'xray scan' },
        { id: 'g', text: 'say "hello" there' },
      ]);
      const cases: ReadonlyArray<readonly [string, readonly string[]]> = [
        ['AND gate', ['a']],
        ['NEAR', ['b']],
        ['NEAR(field radio)', ['b']],
        ['field NEAR/radio', ['b']],
        ['col:term', ['c']],
        ['{col}: term', ['c']],
        ['star*', ['d']],
        ['^star', ['d']],
        ['-xray', ['f']],
        ['xray -scan', ['f']],
        ['"hello', ['g']],
        ['hello" OR "xray', []],
        ['radio + field', ['b']],
      ];
      for (const [search, expected] of cases) {
        expect({ search, ids: await ids(collection, { $text: search }) }).toEqual({ search, ids: expected });
        expect({ search, count: await collection.count({ $text: search }) }).toEqual({ search, count: expected.length });
      }
    });

    it('matches nothing for a string without a word', async () => {
      const collection = await indexed([{ id: 'a', text: 'anything at all' }]);
      for (const search of ['', '   ', '"', '*', '-', '()', '"" ** :: ^ -- ++ ..., !?']) {
        expect({ search, ids: await ids(collection, { $text: search }) }).toEqual({ search, ids: [] });
        expect(await collection.count({ $text: search })).toBe(0);
      }
      expect(await collection.deleteMany({ $text: ' ' })).toBe(0);
      expect(await collection.count()).toBe(1);
    });

    it('rejects $text without a text index, inside $or, or when it is not a string', async () => {
      const plain = ctx.store().collection(ctx.uniqueName('text'));
      await plain.upsert({ id: 'a', text: 'some words' });
      await expect(plain.find({ filter: { $text: 'words' } })).rejects.toThrow(/text index/);
      await expect(plain.count({ $text: 'words' })).rejects.toThrow(/text index/);
      await expect(plain.deleteMany({ $text: 'words' })).rejects.toThrow(/text index/);
      await expect(ctx.store().collection(ctx.uniqueName('text')).find({ filter: { $text: 'words' } })).rejects.toThrow(/text index/);
      expect(await plain.count()).toBe(1);

      const collection = await indexed([{ id: 'a', text: 'some words' }]);
      await expect(collection.find({ filter: { $or: [{ $text: 'words' }, { id: 'a' }] } })).rejects.toThrow(/top level/);
      await expect(collection.find({ filter: { $text: 7 } as unknown as Filter })).rejects.toThrow(/\$text takes a string/);
    });

    it('keeps one text field per collection', async () => {
      const collection = await indexed([{ id: 'a', text: 'one', title: 'two' }]);
      await expect(collection.ensureTextIndex('title')).rejects.toThrow(/already has a text index/);
      await collection.ensureTextIndex('text');
      expect(await ids(collection, { $text: 'one' })).toEqual(['a']);
      await expect(collection.ensureTextIndex('bad path!')).rejects.toThrow(/invalid field path/);
      // A second handle on the same collection knows the index as well.
      const again = ctx.store().collection(ctx.uniqueName('text'));
      await again.ensureTextIndex('title');
      await expect(again.ensureTextIndex('text')).rejects.toThrow(/already has a text index/);
    });
  });
}
