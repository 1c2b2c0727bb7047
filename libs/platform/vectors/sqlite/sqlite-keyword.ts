/**
 * The keyword leg: exact BM25 top k (FTS5's scores and statistics, terms ORed), with MaxScore
 * pruning of the query's most common terms.
 *
 * FTS5 ranks an OR query by scoring every row that holds any term; for real questions ("the",
 * "of", "in" …) that is most of the index (median 90% of 100k passages in the bench), and
 * merging those doclists is most of the cost. A term t can add at most UB(t) = idf(t)·(k1 + 1)
 * to a row's score. So the most common terms C (those with the smallest UB, while their sum U
 * stays within PRUNE_MAX_BOUND) are left out of the MATCH: FTS5 ranks the rows holding the other
 * terms E by their partial score P (exact: the same IDFs), and if θ, the k-th best P, exceeds U,
 * no row outside the fetched ones can reach the top k (its score is < U < θ, and k rows score
 * >= θ). The candidates with P + U >= θ are then scored on every term here (`sqlite-bm25.ts`,
 * FTS5's formula) and the best k kept. When the bound does not hold (θ <= U, fewer than k rows
 * hold an E term, or the fetch was cut before the bound), the plain FTS5 query runs: results
 * are always the exact BM25 top k.
 */
import type { FilterNode, LegCandidate } from '@lore/platform/vectors/port';
import { byScoreThenId, keywordTerms, queryTokens } from '@lore/platform/vectors/port';
import { bm25, BM25_K1, documentFrequencies, idf, readStats } from './sqlite-bm25';
import type { Bm25Stats } from './sqlite-bm25';
import { ftsQuery } from './sqlite-fts-query';
import { SqlParams } from './sqlite-filter.translator';
import { tablesOf } from './sqlite-vector-schema';
import type { SqliteVectorStore } from './sqlite-vector-store.adapter';

/** Most score the pruned terms may add together (see the header; tuned with tools/bench/search.bench.mjs). */
export const PRUNE_MAX_BOUND = 3;
/** Rows of the pruned query fetched: this many times k, at least PRUNE_FETCH_MIN. */
const PRUNE_FETCH_FACTOR = 4;
const PRUNE_FETCH_MIN = 200;
/** Float margin between FTS5's partial scores and ours. */
const EPSILON = 1e-9;

export interface KeywordQueryPlan {
  /** Distinct stems, query order; null when a query token is not one stem (then FTS5 does everything). */
  readonly terms: readonly string[] | null;
  readonly tokens: readonly string[];
}

export function planKeywords(text: string): KeywordQueryPlan {
  const tokens = queryTokens(text);
  const terms: string[] = [];
  for (const token of tokens) {
    const stems = keywordTerms(token);
    if (stems.length !== 1 || stems[0] === undefined) return { terms: null, tokens };
    terms.push(stems[0]);
  }
  return { terms, tokens };
}

export class SqliteKeywordSearch {
  constructor(
    private readonly store: SqliteVectorStore,
    private readonly name: string,
    private readonly scopeSql: (collections: readonly string[], filter: FilterNode, params: SqlParams) => string,
  ) {}

  /** The exact BM25 top k among the scope's matching points, best first (score, then id). */
  leg(collections: readonly string[], filter: FilterNode, text: string, k: number): LegCandidate[] {
    const plan = planKeywords(text);
    if (plan.tokens.length === 0 || filter.kind === 'none') return [];
    return (plan.terms && this.pruned(collections, filter, plan.terms, plan.tokens, k)) ?? this.ftsTop(collections, filter, ftsQuery(text) ?? '', k);
  }

  /** The keyword leg's score of each of `ids` that matches `text`; the others score 0 and are left out. */
  scores(ids: readonly string[], text: string): Map<string, number> {
    const out = new Map<string, number>();
    const plan = planKeywords(text);
    if (ids.length === 0 || plan.tokens.length === 0) return out;
    const { points, text: texts } = tablesOf(this.name);
    if (plan.terms) {
      const idfs = this.idfs(plan.terms);
      const rows = this.store
        .prepare(`SELECT p.id AS id, t.text AS text FROM ${points} AS p JOIN ${texts} AS t ON t.rowid = p.rowid WHERE p.id IN (SELECT value FROM json_each(?))`)
        .all(JSON.stringify(ids)) as Array<{ id: string; text: string }>;
      const { avgdl } = this.stats();
      for (const row of rows) {
        const score = bm25(row.text, plan.terms, idfs, avgdl);
        if (score > 0) out.set(row.id, score);
      }
      return out;
    }
    const match = ftsQuery(text) ?? '';
    const { fts } = tablesOf(this.name);
    // `+rowid` keeps the candidate list away from FTS5: handed to it, FTS5 looks each rowid up
    // and recomputes the query's IDF per lookup (about 1.7 ms each for a common term at 100k rows).
    const rows = this.store
      .prepare(
        `SELECT p.id AS id, bm25(${fts}) AS bm25 FROM ${fts} JOIN ${points} AS p ON p.rowid = ${fts}.rowid ` +
          `WHERE ${fts} MATCH ? AND +${fts}.rowid IN (SELECT rowid FROM ${points} WHERE id IN (SELECT value FROM json_each(?)))`,
      )
      .all(match, JSON.stringify(ids)) as Array<{ id: string; bm25: number }>;
    for (const row of rows) out.set(row.id, -row.bm25);
    return out;
  }

  private stats(): Bm25Stats {
    let stats = this.store.keywordStats.get(this.name);
    if (!stats) {
      stats = readStats(this.store, tablesOf(this.name).fts);
      this.store.keywordStats.set(this.name, stats);
    }
    return stats;
  }

  private idfs(terms: readonly string[]): number[] {
    const stats = this.stats();
    return documentFrequencies(this.store, tablesOf(this.name).fts, stats, terms).map((df) => idf(stats.rows, df));
  }

  /** MaxScore (header); null when the bound does not hold and FTS5 must rank everything. */
  private pruned(collections: readonly string[], filter: FilterNode, terms: readonly string[], tokens: readonly string[], k: number): LegCandidate[] | null {
    const stats = this.stats();
    if (stats.rows === 0) return null;
    const idfs = this.idfs(terms);
    const bounds = idfs.map((v) => v * (BM25_K1 + 1));
    // The most common terms first, while their bounds' sum stays within PRUNE_MAX_BOUND.
    const order = terms.map((_, i) => i).sort((a, b) => (bounds[a] ?? 0) - (bounds[b] ?? 0));
    const pruned = new Set<number>();
    let bound = 0;
    for (const i of order) {
      if (pruned.size === terms.length - 1 || bound + (bounds[i] ?? 0) > PRUNE_MAX_BOUND) break;
      bound += bounds[i] ?? 0;
      pruned.add(i);
    }
    if (pruned.size === 0) return null;
    const kept = tokens.filter((_, i) => !pruned.has(i));
    const match = kept.map((token) => `"${token.replace(/"/g, '""')}"`).join(' OR ');
    const fetch = Math.max(k * PRUNE_FETCH_FACTOR, PRUNE_FETCH_MIN);
    const rows = this.ftsRows(collections, filter, match, fetch);
    const theta = rows[k - 1]?.partial;
    if (theta === undefined || theta <= bound + EPSILON) return null;
    const last = rows[rows.length - 1]?.partial ?? 0;
    if (rows.length === fetch && last + bound >= theta - EPSILON) return null;
    const candidates = rows.filter((row) => row.partial + bound >= theta - EPSILON).map((row) => row.id);
    const scores = this.scores(candidates, tokens.join(' '));
    return [...scores].map(([id, score]) => ({ id, score })).sort(byScoreThenId).slice(0, k);
  }

  private ftsRows(collections: readonly string[], filter: FilterNode, match: string, k: number): Array<{ id: string; partial: number }> {
    const { points, fts } = tablesOf(this.name);
    const params = new SqlParams();
    params.bind(match);
    const where = this.scopeSql(collections, filter, params);
    params.bind(BigInt(k));
    const rows = this.store
      .prepare(`SELECT p.id AS id, bm25(${fts}) AS bm25 FROM ${fts} JOIN ${points} AS p ON p.rowid = ${fts}.rowid WHERE ${fts} MATCH ? AND ${where} ORDER BY bm25, p.id LIMIT ?`)
      .all(...params.values) as Array<{ id: string; bm25: number }>;
    // FTS5's bm25() is negated so that ORDER BY ascending puts the best first; the port's scores grow with relevance.
    return rows.map((row) => ({ id: row.id, partial: -row.bm25 }));
  }

  private ftsTop(collections: readonly string[], filter: FilterNode, match: string, k: number): LegCandidate[] {
    return this.ftsRows(collections, filter, match, k).map((row) => ({ id: row.id, score: row.partial }));
  }
}
