/**
 * What a keyword is, for every adapter: SQLite FTS5's `porter unicode61` analysis, written
 * out for engines that index terms computed in TypeScript (Qdrant) and for building safe
 * FTS5 queries from user text.
 *
 * - Tokens are maximal runs of letters, digits, private-use characters and combining marks
 *   (unicode61's default `L* N* Co`; everything else, punctuation and query syntax included,
 *   separates tokens).
 * - Folded to lower case with diacritics removed (`remove_diacritics`: é → e).
 * - Stemmed with `porterStem` (`running` and `runs` → `run`).
 */
import { porterStem } from './porter-stemmer';

const TOKEN = /[\p{L}\p{N}\p{Co}\p{M}]+/gu;
const MARKS = /\p{M}+/gu;

/** Folded tokens in text order, with repeats (unstemmed). */
export function keywordTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.matchAll(TOKEN)) {
    const folded = match[0].toLowerCase().normalize('NFD').replace(MARKS, '').normalize('NFC');
    if (folded.length > 0) tokens.push(folded);
  }
  return tokens;
}

/** Stemmed terms in text order, with repeats: what BM25 counts. */
export function keywordTerms(text: string): string[] {
  return keywordTokens(text).map(porterStem);
}

/** Most distinct terms a keyword query uses; the rest of a very long query is ignored. */
export const MAX_QUERY_TERMS = 64;

/** The distinct folded tokens of a user's query, first occurrences first, at most MAX_QUERY_TERMS. */
export function queryTokens(text: string): string[] {
  const distinct: string[] = [];
  const seen = new Set<string>();
  for (const token of keywordTokens(text)) {
    const stem = porterStem(token);
    if (seen.has(stem)) continue;
    seen.add(stem);
    distinct.push(token);
    if (distinct.length === MAX_QUERY_TERMS) break;
  }
  return distinct;
}
