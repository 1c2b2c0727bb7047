/**
 * The keyword leg: the exact BM25 top k (terms ORed; FTS5's formula, k1 1.2, b 0.75) among the
 * scope's matching points, each collection scored with its own statistics (documents, average
 * length, document frequencies: `keyword-collection.ts`), so a collection's ranking never moves
 * when another collection changes; over several collections each point keeps the score its
 * own collection gives it, and the best k of all are returned.
 *
 * Search is block-max MaxScore over the in-memory postings (`keyword-search.ts`). A filter is
 * SQL over the points table (`scopeSql`, as the other leg's residual filters), evaluated
 * lazily (`keyword-filter.ts`): only on the candidates that would enter the top k, in batches of
 * `rowid IN (…)`, falling back to the whole collection when the filter proves selective. A filter
 * on `content_id` (what the points table's index answers) is evaluated up front, as before.
 */
import { keywordTerms, queryTokens } from '@lore/platform/vectors/port';
import type { CollectionKeywords } from './keyword-collection';
import { type CandidateFilter, DecidedFilter, LazyFilter } from './keyword-filter';
import { queryTerms, scoreListed, scoreOf, searchCollection, TopK } from './keyword-search';
import { filterSql, SqlParams } from './sqlite-filter.translator';
import { tablesOf } from './sqlite-vector-schema';
import type { SqliteVectorStore } from './sqlite-vector-store.adapter';
import { type FilterNode } from '@lore/platform/kernel';

/** A candidate before its string id is read. */
export interface RowidScore {
  readonly rowid: number;
  readonly score: number;
}

/** The query's distinct stems, query order: the port's analysis (`queryTokens`, then `keywordTerms`). */
export function queryStems(text: string): string[] {
  const stems = new Set<string>();
  for (const token of queryTokens(text)) for (const stem of keywordTerms(token)) stems.add(stem);
  return [...stems];
}

export class SqliteKeywordSearch {
  constructor(
    private readonly store: SqliteVectorStore,
    private readonly name: string,
    private readonly scopeSql: (collections: readonly string[], filter: FilterNode, params: SqlParams) => string,
  ) {}

  /**
   * The leg's top k by rowid, with every entry tied with the k-th score: the leg orders (and
   * cuts) ties by id, which the caller reads with its other rows (`leg`, the hybrid search).
   * `stems`: `queryStems` of the query text.
   */
  top(collections: readonly string[], filter: FilterNode, stems: readonly string[], k: number): RowidScore[] {
    if (stems.length === 0 || filter.kind === 'none') return [];
    const index = this.store.keywords(this.name);
    const termIds = stems.map((stem) => index.termId(stem));
    if (termIds.every((id) => id === undefined)) return [];
    const top = new TopK(k);
    const searched = [...new Set(collections)];
    searched.forEach((collection, slot) => {
      const keywords = index.collections.get(collection);
      if (!keywords) return;
      const terms = queryTerms(keywords, termIds);
      if (terms.length === 0) return;
      if (filter.kind === 'all') {
        searchCollection(keywords, terms, top, slot, null);
        return;
      }
      const candidates = this.filterOf(keywords, collection, filter, k);
      const few = candidates.few();
      if (few) scoreListed(keywords, terms, top, slot, few);
      else searchCollection(keywords, terms, top, slot, candidates);
    });
    return top.entries().map(([score, slot, ordinal]) => ({ score, rowid: index.collections.get(searched[slot] ?? '')?.rowids[ordinal] ?? -1 }));
  }

  /**
   * The keyword leg's score (with its collection's statistics) of each of `rowids` that is a
   * point of `collections` and matches the stems; the others score 0 and are left out. No SQL:
   * the hybrid completion of candidates only the vector leg listed.
   */
  scoresOf(rowids: readonly number[], collections: readonly string[], stems: readonly string[]): Map<number, number> {
    const out = new Map<number, number>();
    if (rowids.length === 0 || stems.length === 0) return out;
    const index = this.store.keywords(this.name);
    const termIds = stems.map((stem) => index.termId(stem));
    const searched = [...new Set(collections)].flatMap((collection) => {
      const keywords = index.collections.get(collection);
      return keywords ? [{ keywords, terms: queryTerms(keywords, termIds) }] : [];
    });
    for (const rowid of rowids) {
      for (const { keywords, terms } of searched) {
        const ordinal = keywords.ordinalOf.get(rowid);
        if (ordinal === undefined) continue;
        const score = scoreOf(keywords, terms, ordinal);
        if (score > 0) out.set(rowid, score);
        break;
      }
    }
    return out;
  }

  /** The filter over one collection: decided up front when it names contents (an index lookup), else lazily. */
  private filterOf(keywords: CollectionKeywords, collection: string, filter: FilterNode, k: number): CandidateFilter {
    const all = (): number[] => this.matching(collection, filter);
    if (namesContents(filter)) return new DecidedFilter(keywords, all());
    return new LazyFilter(keywords, { accepting: (rowids) => this.accepting(filter, rowids), acceptingBetween: (low, high) => this.acceptingBetween(filter, low, high), all }, k);
  }

  /** Rowids of the collection's points the filter accepts. */
  private matching(collection: string, filter: FilterNode): number[] {
    const params = new SqlParams();
    const where = this.scopeSql([collection], filter, params);
    return this.store.prepare(`SELECT p.rowid FROM ${tablesOf(this.name).points} AS p WHERE ${where}`).pluck(true).all(...params.values) as number[];
  }

  /**
   * The rowids among `rowids` (all of one collection) that the filter accepts. No collection
   * condition: with one, SQLite may prefer the (collection_id, content_id) index and scan the
   * whole collection instead of looking the rowids up.
   */
  private accepting(filter: FilterNode, rowids: readonly number[]): number[] {
    const params = new SqlParams();
    params.bind(JSON.stringify(rowids));
    const where = filterSql(filter, params);
    return this.store.prepare(`SELECT p.rowid FROM ${tablesOf(this.name).points} AS p WHERE p.rowid IN (SELECT value FROM json_each(?)) AND ${where}`).pluck(true).all(...params.values) as number[];
  }

  /** The rowids in [low, high] that the filter accepts (of any collection: the caller asks about its own). */
  private acceptingBetween(filter: FilterNode, low: number, high: number): number[] {
    const params = new SqlParams();
    params.bind(low);
    params.bind(high);
    const where = filterSql(filter, params);
    return this.store.prepare(`SELECT p.rowid FROM ${tablesOf(this.name).points} AS p WHERE p.rowid BETWEEN ? AND ? AND ${where}`).pluck(true).all(...params.values) as number[];
  }
}


/** Whether the filter's top-level conjunction restricts `content_id`, which the points table's (collection_id, content_id) index answers. */
function namesContents(filter: FilterNode): boolean {
  const conjuncts = filter.kind === 'and' ? filter.nodes : [filter];
  return conjuncts.some((node) => node.kind === 'match' && node.path.root === 'content_id');
}
