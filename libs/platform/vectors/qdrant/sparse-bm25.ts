/**
 * BM25 as Qdrant sparse vectors. Qdrant's `idf` modifier multiplies each query term's weight
 * by the term's inverse document frequency over the collection, ln(1 + (N − n + 0.5) / (n + 0.5)),
 * at query time; the document side, computed here, carries BM25's saturated and
 * length-normalised term frequency: tf · (k1 + 1) / (tf + k1 · (1 − b + b · |d| / avgdl)).
 * The query side is 1 per distinct term, so a point's score is Σ idf(t) · that, i.e. BM25.
 *
 * Terms are the port's (`keywordTerms`: FTS5's `porter unicode61` analysis, checked
 * against SQLite in the SQLite adapter's tests), so both adapters match the same words.
 * Each term becomes a sparse index by a 32-bit FNV-1a hash; two terms that collide are
 * counted as one (rare: about one pair in a 100,000-term vocabulary).
 *
 * Unlike FTS5, avgdl is a constant (Qdrant cannot renormalise stored vectors as the
 * collection grows): `averageLength`, by default 256 terms, about one chunk.
 */
import { keywordTerms, queryTokens, porterStem } from '@lore/platform/vectors/port';

export interface Bm25Parameters {
  readonly k1: number;
  readonly b: number;
  readonly averageLength: number;
}

/** FTS5's fixed values for k1 and b, so that both adapters rank alike. */
export const DEFAULT_BM25: Bm25Parameters = { k1: 1.2, b: 0.75, averageLength: 256 };

export interface SparseVector {
  indices: number[];
  values: number[];
}

/** FNV-1a over the term's UTF-8 bytes, as an unsigned 32-bit integer (Qdrant's sparse indices are u32). */
export function termIndex(term: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(term, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export function documentVector(text: string, parameters: Bm25Parameters = DEFAULT_BM25): SparseVector {
  const terms = keywordTerms(text);
  const counts = new Map<number, number>();
  for (const term of terms) {
    const index = termIndex(term);
    counts.set(index, (counts.get(index) ?? 0) + 1);
  }
  const { k1, b, averageLength } = parameters;
  const norm = k1 * (1 - b + (b * terms.length) / averageLength);
  const indices = [...counts.keys()].sort((x, y) => x - y);
  return { indices, values: indices.map((index) => {
    const tf = counts.get(index) ?? 0;
    return (tf * (k1 + 1)) / (tf + norm);
  }) };
}

/** One per distinct query term; null when the text has none (nothing can match). */
export function queryVector(text: string): SparseVector | null {
  const indices = [...new Set(queryTokens(text).map((token) => termIndex(porterStem(token))))].sort((x, y) => x - y);
  return indices.length === 0 ? null : { indices, values: indices.map(() => 1) };
}
