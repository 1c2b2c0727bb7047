import type { VectorIndex } from '@lore/platform/vectors/port';
import type { ContractContext } from './contract-context';
import { ids, point, randomVector, seeded, sortedIds } from './contract-context';

const DIMENSIONS = 4;

export function describeKeywordContract(ctx: ContractContext): void {
  describe('vectors: keyword (BM25) search', () => {
    let collection: string;

    async function indexWith(texts: Record<string, string>, inCollection?: string): Promise<VectorIndex> {
      const index = await ctx.newIndex(DIMENSIONS);
      collection = inCollection ?? ctx.uniqueName('col');
      const random = seeded(5);
      const points = Object.entries(texts).map(([id, text]) => point(id, collection, randomVector(random, DIMENSIONS), text));
      await ctx.store().write([{ op: 'upsert', index: index.name, points }]);
      return index;
    }

    const search = async (index: VectorIndex, text: string, limit = 20): Promise<string[]> => ids(await index.searchKeyword({ collections: [collection], text, limit }));

    it('stems: "running" finds "runs" and "runner", plurals find singulars', async () => {
      const index = await indexWith({
        runs: 'She runs every morning',
        running: 'Running shoes for the marathon',
        ran: 'He ran yesterday',
        libraries: 'Two public libraries',
        library: 'A quiet library',
        unrelated: 'Apples and pears',
      });
      expect((await search(index, 'running')).sort()).toEqual(['running', 'runs']);
      expect((await search(index, 'RUN')).sort()).toEqual(['running', 'runs']);
      expect((await search(index, 'library')).sort()).toEqual(['libraries', 'library']);
    });

    it('folds case and diacritics', async () => {
      const index = await indexWith({ cafe: 'Un café à Paris', other: 'Nothing here' });
      expect(await search(index, 'CAFE')).toEqual(['cafe']);
      expect(await search(index, 'Café')).toEqual(['cafe']);
    });

    it('ORs the query terms: a document needs only one of them', async () => {
      const index = await indexWith({ a: 'alpha only', b: 'beta only', c: 'gamma only' });
      expect((await search(index, 'alpha beta')).sort()).toEqual(['a', 'b']);
    });

    it('ranks by BM25: term frequency, rarity and length count', async () => {
      const filler = Array.from({ length: 30 }, (_, i) => `filler${i}`).join(' ');
      const index = await indexWith({
        often: 'apple apple apple banana',
        once: 'apple banana',
        long: `apple ${filler}`,
        rare: 'cherry banana',
        b1: 'banana split',
        b2: 'banana bread',
      });
      expect(await search(index, 'apple')).toEqual(['often', 'once', 'long']);
      // cherry is in one document, apple in three: the rare term weighs more.
      expect((await search(index, 'apple cherry'))[0]).toBe('rare');
      const hits = await index.searchKeyword({ collections: [collection], text: 'apple banana', limit: 10 });
      expect(hits.map((h) => h.rank)).toEqual(hits.map((_, i) => i + 1));
      for (const hit of hits) expect(hit.score).toBeGreaterThan(0);
      for (let i = 1; i < hits.length; i++) expect(hits[i - 1]?.score ?? 0).toBeGreaterThanOrEqual(hits[i]?.score ?? 0);
    });

    it('returns text, payload and collection with each hit, and at most limit hits', async () => {
      const index = await indexWith({ a: 'word one', b: 'word two', c: 'word three' });
      const hits = await index.searchKeyword({ collections: [collection], text: 'word', limit: 2 });
      expect(hits).toHaveLength(2);
      expect(hits[0]).toMatchObject({ collectionId: collection, payload: { content_id: 'content-1' } });
      expect(['word one', 'word two', 'word three']).toContain(hits[0]?.text);
    });

    it.each([
      ['unbalanced quotes', '"running'],
      ['FTS5 operators', 'running AND OR NOT NEAR(x y)'],
      ['a column filter', 'text:running'],
      ['prefix and initial-token syntax', 'run* ^running'],
      ['parentheses and minus', '(running) -shoes +marathon'],
      ['quotes and backslashes', `'running' \\"shoes\\"`],
      ['SQL', "running'); DROP TABLE x; --"],
      ['braces, percent and underscore', '{running} % _ '],
      ['emoji and CJK', 'running 🏃 跑步'],
      ['a very long query', `${'running '.repeat(500)}`],
    ])('takes %s in user text as plain words, never as syntax', async (_title, text) => {
      const index = await indexWith({ running: 'Running shoes for the marathon', other: 'Apples and pears' });
      expect(await search(index, text)).toContain('running');
    });

    it.each([['empty', ''], ['only punctuation', '"*^():-+'], ['only spaces', '   ']])('finds nothing for %s text', async (_title, text) => {
      const index = await indexWith({ a: 'anything at all' });
      expect(await search(index, text)).toEqual([]);
    });

    it('never returns points of another collection', async () => {
      const index = await indexWith({ mine: 'shared words here' });
      const mine = collection;
      const other = ctx.uniqueName('other');
      await ctx.store().write([{ op: 'upsert', index: index.name, points: [point('theirs', other, randomVector(seeded(1), DIMENSIONS), 'shared words here')] }]);
      expect(sortedIds(await index.searchKeyword({ collections: [mine], text: 'shared', limit: 10 }))).toEqual(['mine']);
      expect(sortedIds(await index.searchKeyword({ collections: [mine, other], text: 'shared', limit: 10 }))).toEqual(['mine', 'theirs']);
    });
  });
}
