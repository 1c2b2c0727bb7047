/**
 * Filtered keyword search over in-memory postings: the lazily evaluated filter gives exactly the
 * brute-force filtered top k (ties at the boundary included) on every path — candidates checked
 * in batches, the switch to the whole collection mid-search (then scoring the few accepted
 * directly, or searching on), and the up-front decision — and asks about few candidates when
 * the filter is broad.
 */
import { seeded } from '@lore/platform/vectors/contract';
import { CollectionKeywords } from './keyword-collection';
import { type CandidateFilter, DecidedFilter, type FilterSql, LazyFilter } from './keyword-filter';
import { queryTerms, scoreListed, scoreOf, searchCollection, TopK } from './keyword-search';

const TERMS = 300;
const random = seeded(5);

/** Term ids drawn Zipf-like (term t with weight 1 / (t + 1)): a few in most documents, many rare. */
function drawTerm(): number {
  const u = random();
  return Math.min(TERMS - 1, Math.floor(Math.exp(u * Math.log(TERMS + 1))) - 1);
}

function documentOf(terms: readonly number[]): { ids: Int32Array; tfs: Int32Array; count: number; length: number } {
  const counts = new Map<number, number>();
  for (const t of terms) counts.set(t, (counts.get(t) ?? 0) + 1);
  const ids = Int32Array.from([...counts.keys()].sort((a, b) => a - b));
  return { ids, tfs: Int32Array.from(ids, (id) => counts.get(id) ?? 0), count: ids.length, length: terms.length };
}

/**
 * Rowids are a permutation of the ordinals (× 10), so that ties, ordered by rowid as the leg
 * orders them by id, are not in the order the search meets them.
 */
function collectionOf(size: number): { keywords: CollectionKeywords; texts: Map<number, number[]> } {
  const keywords = new CollectionKeywords();
  const texts = new Map<number, number[]>();
  for (let i = 0; i < size; i++) {
    // Every 50th document is the same short text: many documents tied on any query holding its terms.
    const terms = i % 50 === 7 ? [3, 40, 40] : Array.from({ length: 5 + Math.floor(random() * 30) }, drawTerm);
    const rowid = 10 * (((i * 7919) % size) + 1);
    keywords.add(rowid, documentOf(terms));
    texts.set(rowid, terms);
  }
  return { keywords, texts };
}

type Hit = [rowid: number, score: number];

function ranked(hits: Hit[], k: number): Hit[] {
  return hits.sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k);
}

function bruteForce(keywords: CollectionKeywords, query: readonly number[], k: number, accept: (rowid: number) => boolean): Hit[] {
  const terms = queryTerms(keywords, query);
  const hits: Hit[] = [];
  keywords.rowids.forEach((rowid, ordinal) => {
    if (rowid < 0 || !accept(rowid)) return;
    const score = scoreOf(keywords, terms, ordinal);
    if (score > 0) hits.push([rowid, score]);
  });
  return ranked(hits, k);
}

/** The leg's use of the search: the few accepted scored directly, else MaxScore with the filter. */
function search(keywords: CollectionKeywords, query: readonly number[], k: number, filter: CandidateFilter): Hit[] {
  const terms = queryTerms(keywords, query);
  const top = new TopK(k);
  const few = filter.few();
  if (few) scoreListed(keywords, terms, top, 0, few);
  else searchCollection(keywords, terms, top, 0, filter);
  return ranked(
    top.entries().map(([score, , ordinal]) => [keywords.rowids[ordinal] ?? -1, score]),
    k,
  );
}

/** The SQL side, from a predicate over rowids, counting what it is asked. */
function sqlOf(keywords: CollectionKeywords, accept: (rowid: number) => boolean): FilterSql & { asked: number; wholeScans: number } {
  const sql = {
    asked: 0,
    wholeScans: 0,
    accepting(rowids: readonly number[]): number[] {
      sql.asked += rowids.length;
      return rowids.filter(accept);
    },
    acceptingBetween(low: number, high: number): number[] {
      const rowids = keywords.rowids.filter((rowid) => rowid >= low && rowid <= high);
      sql.asked += rowids.length / 6;
      return rowids.filter(accept);
    },
    all(): number[] {
      sql.wholeScans++;
      return keywords.rowids.filter((rowid) => rowid >= 0 && accept(rowid));
    },
  };
  return sql;
}

const queryOf = (): number[] => [...new Set(Array.from({ length: 2 + Math.floor(random() * 8) }, drawTerm))];

describe('keyword search with a filter evaluated on candidates', () => {
  const { keywords, texts } = collectionOf(20_000);
  // Deletes: tombstones the search must skip, and statistics of the live documents only.
  for (let ordinal = 0; ordinal < keywords.rowids.length; ordinal += 9) {
    const rowid = keywords.rowids[ordinal] ?? -1;
    keywords.remove(rowid, documentOf(texts.get(rowid) ?? []));
  }
  const filters: Array<[string, (rowid: number) => boolean]> = [
    ['30%', (rowid) => (rowid / 10) % 10 < 3],
    ['1%', (rowid) => (rowid / 10) % 100 === 7],
    ['0.1%', (rowid) => (rowid / 10) % 1000 === 7],
    ['none', () => false],
    ['the tied documents only, and a few others', (rowid) => (rowid / 10) % 50 === 8 || (rowid / 10) % 700 === 3],
  ];
  const queries = [...Array.from({ length: 30 }, queryOf), [3, 40], [40, 0, 1], [3]];

  it.each(filters)('lazily: the exact filtered top k with a %s filter, ties at the boundary kept in rowid order', (_, accept) => {
    for (const query of queries) {
      for (const k of [1, 10, 100]) {
        const sql = sqlOf(keywords, accept);
        expect(search(keywords, query, k, new LazyFilter(keywords, sql, k))).toEqual(bruteForce(keywords, query, k, accept));
      }
    }
  });

  it('decided up front (an index answers the filter): the same top k', () => {
    for (const [, accept] of filters) {
      for (const query of queries.slice(0, 10)) {
        const accepted = keywords.rowids.filter((rowid) => rowid >= 0 && accept(rowid));
        expect(search(keywords, query, 10, new DecidedFilter(keywords, accepted))).toEqual(bruteForce(keywords, query, 10, accept));
      }
    }
  });

  it('checks few candidates for a broad filter, and evaluates a selective one on the whole collection once', () => {
    let broad = 0;
    for (const query of queries) {
      const sql = sqlOf(keywords, (rowid) => (rowid / 10) % 10 < 3);
      search(keywords, query, 10, new LazyFilter(keywords, sql, 10));
      expect(sql.wholeScans).toBe(0);
      broad += sql.asked;
    }
    expect(broad / queries.length).toBeLessThan(keywords.live / 20);
    const selective = sqlOf(keywords, (rowid) => (rowid / 10) % 1000 === 7);
    search(keywords, [0, 1, 2], 10, new LazyFilter(keywords, selective, 10));
    expect(selective.wholeScans).toBe(1);
    expect(selective.asked).toBeLessThan(keywords.live / 4);
  });
});
