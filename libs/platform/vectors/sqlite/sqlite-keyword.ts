/**
 * The keyword leg: the exact BM25 top k (terms ORed; FTS5's formula, k1 1.2, b 0.75) among the
 * scope's matching points, each collection scored with its own statistics (documents, average
 * length, document frequencies: `keyword-collection.ts`), so a collection's ranking never moves
 * when another collection changes; over several collections each point keeps the score its
 * own collection gives it, and the best k of all are returned.
 *
 * Search is block-max MaxScore over the in-memory postings (`keyword-search.ts`). A filter
 * first becomes the set of matching points (SQL over the points table, as the other leg's
 * residual filters); when it holds few of the collection's documents (at most 1 in
 * FEW_FILTERED), those are scored directly, else the search skips the others as it goes.
 */
import type { LegCandidate } from '@lore/platform/vectors/port';
import { byScoreThenId, keywordTerms, queryTokens } from '@lore/platform/vectors/port';
import { queryTerms, scoreListed, scoreOf, searchCollection, TopK } from './keyword-search';
import { SqlParams } from './sqlite-filter.translator';
import { tablesOf } from './sqlite-vector-schema';
import type { SqliteVectorStore } from './sqlite-vector-store.adapter';
import { type FilterNode } from '@lore/platform/kernel';

/** A filter accepting at most 1 in this many of a collection's documents is scored point by point. */
const FEW_FILTERED = 16;

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

  /** The exact BM25 top k among the scope's matching points, best first (score, then id). */
  leg(collections: readonly string[], filter: FilterNode, text: string, k: number): LegCandidate[] {
    const stems = queryStems(text);
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
      const ordinals = this.matching(collection, filter).flatMap((rowid) => {
        const ordinal = keywords.ordinalOf.get(rowid);
        return ordinal === undefined ? [] : [ordinal];
      });
      if (ordinals.length * FEW_FILTERED <= keywords.rowids.length) {
        scoreListed(keywords, terms, top, slot, ordinals.sort((a, b) => a - b));
        return;
      }
      const allowed = new Uint8Array(keywords.rowids.length);
      for (const ordinal of ordinals) allowed[ordinal] = 1;
      searchCollection(keywords, terms, top, slot, allowed);
    });
    const entries = top.entries().map(([score, slot, ordinal]) => ({ score, rowid: index.collections.get(searched[slot] ?? '')?.rowids[ordinal] ?? -1 }));
    const ids = this.idsByRowid(entries.map((e) => e.rowid));
    return entries
      .flatMap((e) => {
        const id = ids.get(e.rowid);
        return id === undefined ? [] : [{ id, score: e.score }];
      })
      .sort(byScoreThenId)
      .slice(0, k);
  }

  /** The keyword leg's score of each of `ids` that matches `text` (with its collection's statistics); the others score 0 and are left out. */
  scores(ids: readonly string[], text: string): Map<string, number> {
    const out = new Map<string, number>();
    const stems = queryStems(text);
    if (ids.length === 0 || stems.length === 0) return out;
    const index = this.store.keywords(this.name);
    const termIds = stems.map((stem) => index.termId(stem));
    const rows = this.store
      .prepare(`SELECT rowid, id, collection_id FROM ${tablesOf(this.name).points} WHERE id IN (SELECT value FROM json_each(?))`)
      .all(JSON.stringify(ids)) as Array<{ rowid: number; id: string; collection_id: string }>;
    for (const row of rows) {
      const keywords = index.collections.get(row.collection_id);
      const ordinal = keywords?.ordinalOf.get(row.rowid);
      if (!keywords || ordinal === undefined) continue;
      const score = scoreOf(keywords, queryTerms(keywords, termIds), ordinal);
      if (score > 0) out.set(row.id, score);
    }
    return out;
  }

  /** Rowids of the collection's points the filter accepts. */
  private matching(collection: string, filter: FilterNode): number[] {
    const params = new SqlParams();
    const where = this.scopeSql([collection], filter, params);
    return this.store.prepare(`SELECT p.rowid FROM ${tablesOf(this.name).points} AS p WHERE ${where}`).pluck(true).all(...params.values) as number[];
  }

  private idsByRowid(rowids: readonly number[]): Map<number, string> {
    if (rowids.length === 0) return new Map();
    const rows = this.store.prepare(`SELECT rowid, id FROM ${tablesOf(this.name).points} WHERE rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rowids)) as Array<{ rowid: number; id: string }>;
    return new Map(rows.map((row) => [row.rowid, row.id]));
  }
}

