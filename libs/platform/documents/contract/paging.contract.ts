import { AppError } from '@lore/platform/kernel';
import { encodeCursor } from '@lore/platform/documents/port';
import type { Doc, DocumentCollection, FindOptions, Sort } from '@lore/platform/documents/port';
import type { ContractContext } from './contract-context';

const N = 23;

/** Ids, insertion order and every sort key disagree, so an accidental order cannot pass. */
function item(k: number): Doc {
  const label = k % 4 === 0 ? {} : k % 4 === 1 ? { label: null } : { label: `L${(k * 3) % 5}` };
  const meta = k % 2 === 0 ? { meta: { level: k % 5 } } : {};
  return {
    id: `d${String(k).padStart(2, '0')}`,
    group: ['b', 'a', 'c'][k % 3],
    score: (k * 5) % 4,
    rank: (k * 11) % N,
    created: new Date(Date.UTC(2024, 0, 1) + ((k * 7) % N) * 36e5).toISOString(),
    ...label,
    ...meta,
  };
}

const ITEMS: readonly Doc[] = Array.from({ length: N }, (_, k) => item(k));

function valueAt(doc: Doc, path: string): unknown {
  let current: unknown = doc;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return null;
    current = (current as Record<string, unknown>)[segment];
  }
  return current ?? null;
}

/** The port's order for single-typed keys: null/absent first ascending; ties by id in the last key's direction. */
function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  if (a === null) return -1;
  if (b === null) return 1;
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- sort keys are JSON scalars (strings, booleans)
  return String(a) < String(b) ? -1 : 1;
}

function expectedOrder(docs: readonly Doc[], sort: Sort): string[] {
  const keys = [...sort, ['id', sort.at(-1)?.[1] ?? 'asc'] as const];
  return [...docs]
    .sort((x, y) => {
      for (const [field, direction] of keys) {
        const c = compareValues(valueAt(x, field), valueAt(y, field));
        if (c !== 0) return direction === 'asc' ? c : -c;
      }
      return 0;
    })
    .map((d) => d.id);
}

async function collectPages(docs: DocumentCollection, options: FindOptions, between?: (page: number) => Promise<void>): Promise<string[][]> {
  const pages: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await docs.find(cursor === undefined ? options : { ...options, cursor });
    pages.push(page.items.map((d) => d.id));
    if (page.nextCursor === null) return pages;
    if (pages.length > 100) throw new Error('paging does not terminate');
    cursor = page.nextCursor;
    await between?.(pages.length);
  }
}

const SORTS: ReadonlyArray<readonly [string, Sort]> = [
  ['no sort (id ascending)', []],
  ['a numeric key with ties, ascending', [['score', 'asc']]],
  ['a numeric key with ties, descending', [['score', 'desc']]],
  ['mixed directions', [['group', 'asc'], ['score', 'desc']]],
  ['mixed directions the other way', [['group', 'desc'], ['score', 'asc'], ['rank', 'desc']]],
  ['a key that is absent or null on half the items, ascending', [['label', 'asc']]],
  ['a key that is absent or null on half the items, descending', [['label', 'desc']]],
  ['a nested key absent on odd items', [['meta.level', 'desc'], ['group', 'asc']]],
  ['ISO timestamps descending', [['created', 'desc']]],
  ['id descending', [['id', 'desc']]],
];

export function describePagingContract(ctx: ContractContext): void {
  describe('documents: sort and paging', () => {
    async function seeded(): Promise<DocumentCollection> {
      const docs = ctx.store().collection(ctx.uniqueName('paging'));
      for (let i = 0; i < N; i++) await docs.upsert(ITEMS[(i * 7) % N] as Doc);
      return docs;
    }

    it.each(SORTS)('sorts by %s', async (_title, sort) => {
      const docs = await seeded();
      const page = await docs.find({ sort });
      expect(page.items.map((d) => d.id)).toEqual(expectedOrder(ITEMS, sort));
      expect(page.nextCursor).toBeNull();
    });

    it('compares numbers numerically, not as text', async () => {
      const docs = ctx.store().collection(ctx.uniqueName());
      for (const [id, n] of [['a', 10], ['b', 2], ['c', 1.5], ['d', -3], ['e', 100]] as const) await docs.upsert({ id, n });
      expect((await docs.find({ sort: [['n', 'asc']] })).items.map((d) => d.id)).toEqual(['d', 'c', 'b', 'a', 'e']);
    });

    it('skips and limits (offset paging)', async () => {
      const docs = await seeded();
      const sort: Sort = [['score', 'desc'], ['rank', 'asc']];
      const page = await docs.find({ sort, skip: 5, limit: 4 });
      expect(page.items.map((d) => d.id)).toEqual(expectedOrder(ITEMS, sort).slice(5, 9));
      expect(page.nextCursor).not.toBeNull();
      const tail = await docs.find({ sort, skip: 20, limit: 4 });
      expect(tail.items.map((d) => d.id)).toEqual(expectedOrder(ITEMS, sort).slice(20));
      expect(tail.nextCursor).toBeNull();
      expect((await docs.find({ sort, skip: 50 })).items).toEqual([]);
    });

    it('a limit covering every match returns no cursor', async () => {
      const docs = await seeded();
      expect((await docs.find({ limit: N })).nextCursor).toBeNull();
      expect((await docs.find({ limit: N + 10 })).items).toHaveLength(N);
      expect((await docs.find({ limit: N - 1 })).nextCursor).not.toBeNull();
    });

    describe.each([1, 4, 5])('cursor paging with pages of %i', (limit) => {
      it.each(SORTS)('visits every item exactly once, in order, sorted by %s', async (_title, sort) => {
        const docs = await seeded();
        const pages = await collectPages(docs, { sort, limit });
        expect(pages.flat()).toEqual(expectedOrder(ITEMS, sort));
        expect(pages).toHaveLength(Math.ceil(N / limit));
        expect(pages.every((p) => p.length === limit || p === pages.at(-1))).toBe(true);
      });
    });

    it('pages through a filtered query, and ignores skip when a cursor is given', async () => {
      const docs = await seeded();
      const filter = { group: { $in: ['a', 'c'] } };
      const sort: Sort = [['label', 'desc']];
      const first = await docs.find({ filter, sort, limit: 3, skip: 1 });
      const rest = await collectPages(docs, { filter, sort, limit: 3, skip: 1 });
      const wanted = expectedOrder(ITEMS.filter((d) => d.group !== 'b'), sort);
      expect(first.items.map((d) => d.id)).toEqual(wanted.slice(1, 4));
      expect(rest.flat()).toEqual(wanted.slice(1));
    });

    it.each([
      ['ascending', 'asc'],
      ['descending', 'desc'],
    ] as const)('stays stable under inserts and deletes between pages (%s)', async (_title, direction) => {
      const docs = await seeded();
      const step = direction === 'asc' ? 0.5 : -0.5;
      const seen: Doc[] = [];
      const addedAhead: string[] = [];
      const addedBehind: string[] = [];
      const deletedAhead = new Set<string>();
      let cursor: string | undefined;
      for (let round = 1; ; round++) {
        const page = await docs.find({ sort: [['rank', direction]], limit: 5, ...(cursor === undefined ? {} : { cursor }) });
        seen.push(...page.items);
        const last = page.items.at(-1);
        if (page.nextCursor === null || !last) break;
        cursor = page.nextCursor;
        const rank = last['rank'] as number;
        await docs.upsert({ id: `new${round}b`, rank: rank - step });
        addedBehind.push(`new${round}b`);
        await docs.upsert({ id: `new${round}a`, rank: rank + step });
        addedAhead.push(`new${round}a`);
        // Deleting the very item the cursor points at must not disturb the next page.
        await docs.delete(last.id);
        const far = ITEMS.find((d) => d['rank'] === rank + 6 * step);
        if (far && !seen.some((d) => d.id === far.id)) {
          deletedAhead.add(far.id);
          await docs.delete(far.id);
        }
      }
      const ids = seen.map((d) => d.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(ITEMS.filter((d) => !deletedAhead.has(d.id)).map((d) => d.id)));
      expect(ids).toEqual(expect.arrayContaining(addedAhead));
      expect(ids.filter((id) => addedBehind.includes(id) || deletedAhead.has(id))).toEqual([]);
      const ranks = seen.map((d) => d['rank'] as number);
      expect(ranks).toEqual([...ranks].sort((a, b) => (direction === 'asc' ? a - b : b - a)));
      expect(deletedAhead.size).toBeGreaterThan(0);
    });

    it('never repeats or skips pre-existing items when ties are inserted between pages', async () => {
      const docs = await seeded();
      const sort: Sort = [['score', 'asc']];
      let inserted = 0;
      const pages = await collectPages(docs, { sort, limit: 4 }, async () => {
        // Same scores as existing items, ids on both sides of theirs: the id tie-breaker decides.
        for (const id of ['d000', 'd99', `e${inserted}`]) await docs.upsert({ id: `${id}_${inserted}`, score: inserted % 4 });
        inserted++;
      });
      const ids = pages.flat();
      expect(new Set(ids).size).toBe(ids.length);
      expect(ids).toEqual(expect.arrayContaining(ITEMS.map((d) => d.id)));
      const all = (await docs.find({ sort })).items.map((d) => d.id);
      expect(ids).toEqual(all.filter((id) => ids.includes(id)));
    });

    it('rejects a malformed cursor, or one from another sort, as a validation error on query.cursor', async () => {
      const docs = await seeded();
      const fromOtherSort = (await docs.find({ sort: [['score', 'asc']], limit: 2 })).nextCursor;
      expect(fromOtherSort).not.toBeNull();
      const bad = [
        'definitely not a cursor',
        Buffer.from('{"values":[]}').toString('base64url'),
        Buffer.from('[[{"x":1}],"d01"]').toString('base64url'),
        encodeCursor({ values: ['a', 2, 3], id: 'd01' }),
        fromOtherSort ?? '',
      ];
      for (const cursor of bad) {
        const failure = docs.find({ sort: [['group', 'asc'], ['rank', 'desc']], cursor, limit: 2 });
        await expect(failure).rejects.toBeInstanceOf(AppError);
        await expect(failure).rejects.toMatchObject({ code: 'validation', issues: [expect.objectContaining({ loc: ['query', 'cursor'] })] });
      }
    });

    it('rejects a cursor from a query with the same shape but another sort field, direction or filter', async () => {
      const docs = await seeded();
      const cursor = (await docs.find({ sort: [['score', 'asc']], filter: { group: 'a' }, limit: 1 })).nextCursor ?? '';
      expect((await docs.find({ sort: [['score', 'asc']], filter: { group: 'a' }, cursor, limit: 1 })).items).toHaveLength(1);
      for (const other of [
        { sort: [['rank', 'asc']] as const, filter: { group: 'a' } },
        { sort: [['score', 'desc']] as const, filter: { group: 'a' } },
        { sort: [['score', 'asc']] as const, filter: { group: 'b' } },
      ]) {
        await expect(docs.find({ ...other, cursor, limit: 1 })).rejects.toMatchObject({ code: 'validation' });
      }
    });
  });
}
