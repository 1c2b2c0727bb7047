/**
 * FTS5's BM25, computed here for given texts, and the index statistics it needs: so that the
 * keyword leg can prune (MaxScore, `sqlite-keyword.ts`) and hybrid completion can score a few
 * texts without an FTS5 pass over every doclist of the query.
 *
 * The formula is FTS5's `bm25()` (fts5_aux.c), term for term and in the same order, with the
 * same statistics: nRow and the total token count from the FTS5 averages record, a term's
 * document frequency from `fts5vocab` (what FTS5's xQueryPhrase counts), a text's token count
 * and term frequencies from the port's `keywordTerms`, which equals FTS5's `porter unicode61`
 * analysis (sqlite-vector-store.int.spec.ts). Scores equal FTS5's to the last bits of a double
 * (`Math.log` against C's `log`); the int spec compares them.
 */
import { porterStem } from '@lore/platform/vectors/port';
import type { Param } from './sqlite-vector-schema';
import type Database from 'better-sqlite3';

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** FTS5's floor for the IDF of a term in more than half of the rows. */
const MIN_IDF = 1e-6;

export interface Bm25Stats {
  readonly rows: number;
  readonly avgdl: number;
  /** Document frequency by stemmed term (filled on demand). */
  readonly df: Map<string, number>;
}

interface Sql {
  prepare(sql: string): Database.Statement<Param[]>;
}

/** SQLite's varint (big-endian 7-bit groups, a 9th byte of 8 bits), as FTS5 writes its records. */
function readVarint(buf: Buffer, offset: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 8; i++) {
    const byte = buf[offset + i] ?? 0;
    value = value * 128 + (byte & 0x7f);
    if ((byte & 0x80) === 0) return [value, offset + i + 1];
  }
  return [value * 256 + (buf[offset + 8] ?? 0), offset + 9];
}

/** nRow and the total token count of the (one-column) FTS5 table, from its averages record (id 1 of `%_data`). */
export function readStats(sql: Sql, fts: string): Bm25Stats {
  const block = sql.prepare(`SELECT block FROM ${fts}_data WHERE id = 1`).pluck(true).get() as Buffer | undefined;
  if (!block || block.length === 0) return { rows: 0, avgdl: 0, df: new Map() };
  const [rows, next] = readVarint(block, 0);
  const [tokens] = readVarint(block, next);
  return { rows, avgdl: rows > 0 ? tokens / rows : 0, df: new Map() };
}

/** Document frequencies of the terms, through a per-connection fts5vocab table (temp schema), cached in `stats`. */
export function documentFrequencies(sql: Sql & { readonly db: { exec(sql: string): unknown } }, fts: string, stats: Bm25Stats, terms: readonly string[]): number[] {
  const missing = terms.filter((t) => !stats.df.has(t));
  if (missing.length > 0) {
    const vocab = `temp.${fts}_vocab`;
    sql.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS ${vocab} USING fts5vocab(main, ${fts}, row)`);
    const lookup = sql.prepare(`SELECT doc FROM ${vocab} WHERE term = ?`).pluck(true);
    for (const term of missing) stats.df.set(term, Number(lookup.get(term) ?? 0));
  }
  return terms.map((t) => stats.df.get(t) ?? 0);
}

export function idf(rows: number, df: number): number {
  const value = Math.log((rows - df + 0.5) / (df + 0.5));
  return value <= 0 ? MIN_IDF : value;
}

const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const MARKS = /\p{M}+/gu;
const ASCII = /^[\x20-\x7e]*$/;
const stems = new Map<string, string>();

/** `keywordTerms`, faster: ASCII tokens skip Unicode normalisation, stems are memoised. */
function forEachTerm(text: string, visit: (term: string) => void): void {
  for (const match of text.matchAll(TOKEN)) {
    const lower = match[0].toLowerCase();
    const folded = ASCII.test(lower) ? lower : lower.normalize('NFD').replace(MARKS, '').normalize('NFC');
    if (folded.length === 0) continue;
    let stem = stems.get(folded);
    if (stem === undefined) {
      stem = porterStem(folded);
      if (stems.size > 200_000) stems.clear();
      stems.set(folded, stem);
    }
    visit(stem);
  }
}

/** FTS5's bm25 (as a positive score) of `text` for the query terms (distinct stems, query order) with these IDFs. */
export function bm25(text: string, terms: readonly string[], idfs: readonly number[], avgdl: number): number {
  const index = new Map(terms.map((t, i) => [t, i]));
  const freq = new Float64Array(terms.length);
  let length = 0;
  forEachTerm(text, (term) => {
    length++;
    const i = index.get(term);
    if (i !== undefined) freq[i] = (freq[i] ?? 0) + 1;
  });
  const D = length;
  let score = 0;
  for (let i = 0; i < terms.length; i++) {
    const f = freq[i] ?? 0;
    score += (idfs[i] ?? 0) * ((f * (BM25_K1 + 1.0)) / (f + BM25_K1 * (1 - BM25_B + (BM25_B * D) / avgdl)));
  }
  return score;
}
