import { findWithout, type Doc } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from './sqlite-document-store.adapter';

/** `findWithout` over the embedded store: pages of what is shown, past documents being purged. */
describe('findWithout', () => {
  const documents = openSqliteDocumentStore({ path: ':memory:' });
  const items = documents.collection<Doc & { readonly n: number }>('items');
  // 1,500 documents; every one below 600 with an even number is being purged (300 of them).
  const dropped = async () => (doc: { readonly n: number }) => doc.n < 600 && doc.n % 2 === 0;
  const shown = Array.from({ length: 1_500 }, (_, n) => n).filter((n) => !(n < 600 && n % 2 === 0));
  const page = (options: { skip?: number; cursor?: string; limit: number }) => findWithout(items, { sort: [['n', 'asc']], ...options }, dropped);

  beforeAll(async () => {
    await documents.write(Array.from({ length: 1_500 }, (_, n) => ({ collection: 'items', op: 'upsert' as const, doc: { id: `item-${String(n).padStart(5, '0')}`, n } })));
  });
  afterAll(() => documents.close());

  it('counts an offset in documents shown: offset pages neither overlap nor end early', async () => {
    for (const skip of [0, 7, 250, 600, 1_000]) {
      expect((await page({ skip, limit: 20 })).items.map((doc) => doc.n)).toEqual(shown.slice(skip, skip + 20));
    }
  });

  it('pages by cursor past what it drops, the cursor right after the page', async () => {
    const seen: number[] = [];
    for (let cursor: string | undefined; ; ) {
      const next = await page({ limit: 50, ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...next.items.map((doc) => doc.n));
      if (next.nextCursor === null) break;
      cursor = next.nextCursor;
    }
    expect(seen).toEqual(shown);
  });

  it('leaves an offset deeper than 1,000 to the engine, which counts the dropped documents before it', async () => {
    // Reading 1,200 documents to count what they show would cost every caller of such an offset.
    expect((await page({ skip: 1_200, limit: 5 })).items.map((doc) => doc.n)).toEqual([1_200, 1_201, 1_202, 1_203, 1_204]);
  });
});
