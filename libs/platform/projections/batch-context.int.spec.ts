import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { DocumentStore } from '@lore/platform/documents/port';
import { BatchContext } from './batch-context';

describe('BatchContext', () => {
  let store: DocumentStore;
  beforeEach(() => {
    store = openSqliteDocumentStore({ path: ':memory:' });
  });
  afterEach(() => store.close());

  it('keeps only the last write of a document written again, in the order of the last writes', async () => {
    const batch = new BatchContext(store);
    for (let n = 1; n <= 100; n++) {
      batch.upsert('conversations', { id: 'c1', message_count: n });
      batch.upsert('messages', { id: `m${n}`, conversation_id: 'c1' });
    }
    batch.upsert('conversations', { id: 'c2', message_count: 1 });
    expect(batch.writes).toHaveLength(102);
    expect(batch.writes.slice(-3).map((w) => (w.op === 'upsert' ? w.doc : w))).toEqual([
      { id: 'c1', message_count: 100 },
      { id: 'm100', conversation_id: 'c1' },
      { id: 'c2', message_count: 1 },
    ]);
    await store.write(batch.writes);
    expect(await store.collection('conversations').get('c1')).toEqual({ id: 'c1', message_count: 100 });
  });

  it('a delete after an upsert leaves the delete, an upsert after a delete the upsert; reads see the last', async () => {
    await store.write([{ collection: 'docs', op: 'upsert', doc: { id: 'gone', v: 0 } }, { collection: 'docs', op: 'upsert', doc: { id: 'back', v: 0 } }]);
    const batch = new BatchContext(store);
    batch.upsert('docs', { id: 'gone', v: 1 });
    batch.delete('docs', 'gone');
    batch.delete('docs', 'back');
    expect(await batch.get('docs', 'back')).toBeNull();
    batch.upsert('docs', { id: 'back', v: 2 });
    expect(await batch.get('docs', 'back')).toEqual({ id: 'back', v: 2 });
    expect(batch.writes).toEqual([
      { collection: 'docs', op: 'delete', id: 'gone' },
      { collection: 'docs', op: 'upsert', doc: { id: 'back', v: 2 } },
    ]);
    await store.write(batch.writes);
    expect(await store.collection('docs').get('gone')).toBeNull();
    expect(await store.collection('docs').get('back')).toEqual({ id: 'back', v: 2 });
  });

  it('reads a document from the store once per batch, a missing one too; its own writes still come first', async () => {
    await store.write([{ collection: 'docs', op: 'upsert', doc: { id: 'c1', v: 1 } }]);
    const collection = store.collection.bind(store);
    const reads: string[] = [];
    const counted: DocumentStore = Object.assign(Object.create(store) as DocumentStore, {
      collection: (name: string) => {
        const inner = collection(name);
        return Object.assign(Object.create(inner) as typeof inner, { get: (id: string) => (reads.push(id), inner.get(id)) });
      },
    });
    const batch = new BatchContext(counted);

    const first = await batch.get('docs', 'c1');
    expect(await batch.get('docs', 'c1')).toBe(first);
    expect(await batch.get('docs', 'none')).toBeNull();
    expect(await batch.get('docs', 'none')).toBeNull();
    expect(reads).toEqual(['c1', 'none']);

    batch.upsert('docs', { id: 'c1', v: 2 });
    batch.upsert('docs', { id: 'none', v: 1 });
    expect(await batch.get('docs', 'c1')).toEqual({ id: 'c1', v: 2 });
    expect(await batch.get('docs', 'none')).toEqual({ id: 'none', v: 1 });
    expect(await new BatchContext(counted).get('docs', 'c1')).toEqual({ id: 'c1', v: 1 });
    expect(reads).toEqual(['c1', 'none', 'c1']);
  });

  it('keeps a deleteMany where it was made: a document written after it survives, one written before and matching does not', async () => {
    const batch = new BatchContext(store);
    batch.upsert('docs', { id: 'a', kind: 'old' });
    batch.upsert('docs', { id: 'b', kind: 'old' });
    batch.deleteMany('docs', { kind: 'old' });
    batch.upsert('docs', { id: 'a', kind: 'old' });
    await store.write(batch.writes);
    expect(await store.collection('docs').get('a')).toEqual({ id: 'a', kind: 'old' });
    expect(await store.collection('docs').get('b')).toBeNull();
  });
});
