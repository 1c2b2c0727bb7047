import type { Doc, Filter } from '@lore/platform/documents/port';
import type { ContractContext } from './contract-context';

/**
 * Five documents chosen to separate look-alikes: a number from the same digits as a string
 * (p3 vs p4), `true` from 1 (p1 vs p5), null from absent (p1 vs p2), an array from a scalar
 * (p2 vs p5), and names holding characters special to regexes and LIKE patterns.
 */
const PEOPLE: readonly Doc[] = [
  { id: 'p1', name: 'Alice Smith', age: 30, active: true, tags: ['admin', 'ops'], meta: { owner: 'u1', level: 2 }, note: null, joined: '2024-01-05T10:00:00.000Z' },
  { id: 'p2', name: 'bob jones', age: 25, active: false, tags: ['ops'], meta: { owner: 'u2', level: 1 }, joined: '2023-12-31T23:59:59.000Z' },
  { id: 'p3', name: 'Carol', age: 41, active: true, tags: [], meta: { owner: 'u1' }, note: 'vip', joined: '2024-02-01T00:00:00.000Z' },
  { id: 'p4', name: 'Dan 100% a.c', age: '41', tags: ['dev', 'admin', 'ops'], joined: '2024-01-20T00:00:00.000Z' },
  { id: 'p5', name: 'EVE', age: 7, active: 1, tags: 'ops', meta: { owner: null, level: 3 }, joined: '2024-03-01T00:00:00.000Z' },
];

const ALL = ['p1', 'p2', 'p3', 'p4', 'p5'];

const CASES: ReadonlyArray<readonly [string, Filter, readonly string[]]> = [
  ['an empty filter matches everything', {}, ALL],
  ['string equality', { name: 'Carol' }, ['p3']],
  ['number equality never matches a string of the same digits', { age: 41 }, ['p3']],
  ['string equality never matches a number', { age: '41' }, ['p4']],
  ['true never matches 1', { active: true }, ['p1', 'p3']],
  ['false equality', { active: false }, ['p2']],
  ['1 never matches true', { active: 1 }, ['p5']],
  ['equality on a nested path', { 'meta.owner': 'u1' }, ['p1', 'p3']],
  ['null equality matches null and absent', { note: null }, ['p1', 'p2', 'p4', 'p5']],
  ['null equality on a nested path matches a missing parent too', { 'meta.owner': null }, ['p4', 'p5']],
  ['$eq', { note: { $eq: 'vip' } }, ['p3']],
  ['$ne includes documents lacking the field', { note: { $ne: 'vip' } }, ['p1', 'p2', 'p4', 'p5']],
  ['$ne null means present and not null', { note: { $ne: null } }, ['p3']],
  ['$ne true keeps false, absent and 1', { active: { $ne: true } }, ['p2', 'p4', 'p5']],
  ['$in over numbers', { age: { $in: [25, 41] } }, ['p2', 'p3']],
  ['$in over mixed types stays type-strict', { age: { $in: ['41', 7] } }, ['p4', 'p5']],
  ['$in with null matches absent and null', { note: { $in: [null, 'vip'] } }, ALL],
  ['$in with booleans', { active: { $in: [false, 1] } }, ['p2', 'p5']],
  ['$in with an empty list matches nothing', { age: { $in: [] } }, []],
  ['$nin includes documents lacking the field', { 'meta.level': { $nin: [1, 2] } }, ['p3', 'p4', 'p5']],
  ['$nin with an empty list matches everything', { age: { $nin: [] } }, ALL],
  ['$gt compares numbers only with numbers', { age: { $gt: 25 } }, ['p1', 'p3']],
  ['$gte', { age: { $gte: 25 } }, ['p1', 'p2', 'p3']],
  ['$lt', { age: { $lt: 25 } }, ['p5']],
  ['$lte and $gt together form a range', { age: { $lte: 30, $gt: 7 } }, ['p1', 'p2']],
  ['strings compare lexically (by code point) and only with strings', { name: { $gte: 'C' } }, ['p2', 'p3', 'p4', 'p5']],
  ['ISO timestamps compare as strings', { joined: { $gte: '2024-01-01', $lt: '2024-02-01' } }, ['p1', 'p4']],
  ['a range on a nested path', { 'meta.level': { $gte: 2 } }, ['p1', 'p5']],
  ['$exists true means present and not null', { note: { $exists: true } }, ['p3']],
  ['$exists false means absent or null', { note: { $exists: false } }, ['p1', 'p2', 'p4', 'p5']],
  ['$exists true on an object field', { meta: { $exists: true } }, ['p1', 'p2', 'p3', 'p5']],
  ['$exists false on a nested path', { 'meta.level': { $exists: false } }, ['p3', 'p4']],
  ['$contains matches arrays holding the value, never a scalar equal to it', { tags: { $contains: 'ops' } }, ['p1', 'p2', 'p4']],
  ['$contains with a value nobody holds', { tags: { $contains: 'nope' } }, []],
  ['$containsAll needs every value', { tags: { $containsAll: ['admin', 'ops'] } }, ['p1', 'p4']],
  ['$containsAll with one value', { tags: { $containsAll: ['ops'] } }, ['p1', 'p2', 'p4']],
  ['$containsAll with no values matches every array, even empty', { tags: { $containsAll: [] } }, ['p1', 'p2', 'p3', 'p4']],
  ['$icontains ignores case', { name: { $icontains: 'SMITH' } }, ['p1']],
  ['$icontains finds a substring anywhere', { name: { $icontains: 'o' } }, ['p2', 'p3']],
  ['$icontains takes % literally', { name: { $icontains: '100%' } }, ['p4']],
  ['$icontains takes . literally', { name: { $icontains: 'l.c' } }, []],
  ['$icontains takes _ literally', { name: { $icontains: '_' } }, []],
  ['$icontains never matches non-strings', { age: { $icontains: '4' } }, ['p4']],
  ['several fields are ANDed', { name: { $icontains: 'e' }, age: { $gt: 20 } }, ['p1', 'p2']],
  ['$or', { $or: [{ name: 'Carol' }, { age: 25 }] }, ['p2', 'p3']],
  ['$or ANDed with fields', { active: true, $or: [{ 'meta.level': 2 }, { note: 'vip' }] }, ['p1', 'p3']],
  ['nested $or', { $or: [{ tags: { $contains: 'dev' } }, { $or: [{ age: 7 }] }] }, ['p4', 'p5']],
  ['an empty $or matches nothing', { $or: [] }, []],
  ['equality on id', { id: 'p2' }, ['p2']],
  ['$in on id', { id: { $in: ['p1', 'p5', 'zz'] } }, ['p1', 'p5']],
  ['a range on id', { id: { $gt: 'p3' } }, ['p4', 'p5']],
];

export function describeFilterContract(ctx: ContractContext): void {
  describe('documents: filters', () => {
    async function seeded(): Promise<ReturnType<ReturnType<ContractContext['store']>['collection']>> {
      const docs = ctx.store().collection(ctx.uniqueName('people'));
      for (const person of PEOPLE) await docs.upsert(person);
      return docs;
    }

    it.each(CASES)('%s', async (_title, filter, expected) => {
      const docs = await seeded();
      const page = await docs.find({ filter });
      expect(page.items.map((d) => d.id).sort()).toEqual([...expected].sort());
      expect(await docs.count(filter)).toBe(expected.length);
    });

    it('returns whole documents from a filtered find', async () => {
      const docs = await seeded();
      const page = await docs.find({ filter: { 'meta.owner': 'u2' } });
      expect(page.items).toEqual([PEOPLE[1]]);
      expect(page.nextCursor).toBeNull();
    });

    it('deleteMany honours the same operators', async () => {
      const docs = await seeded();
      expect(await docs.deleteMany({ $or: [{ tags: { $contains: 'admin' } }, { note: { $exists: true } }] })).toBe(3);
      expect((await docs.find()).items.map((d) => d.id).sort()).toEqual(['p2', 'p5']);
    });

    it('rejects unknown operators and unsafe field paths instead of guessing', async () => {
      const docs = await seeded();
      const bad: Filter[] = [
        { age: { $regex: 'x' } as unknown as Filter[string] },
        { "name') OR 1=1 --": 'x' },
        { 'a..b': 1 },
        { $where: 'true' },
      ];
      for (const filter of bad) await expect(docs.find({ filter })).rejects.toThrow();
      await expect(docs.find({ sort: [['bad path', 'asc']] })).rejects.toThrow();
    });
  });
}
