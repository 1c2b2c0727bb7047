/**
 * One term's postings in one collection, in memory: document ordinals (ascending) and term
 * frequencies in growable typed arrays, cut into blocks of BLOCK entries, each block with the
 * highest term frequency and the shortest document length it holds. Those two bound the
 * block's BM25 impact for whatever avgdl the collection has when a query runs (the impact
 * grows with tf and shrinks with length), so the bounds never need recomputing as the
 * collection's statistics move; deleting a document leaves them an upper bound.
 *
 * New documents always take the next ordinal (`keyword-collection.ts`), so adding is an append.
 */
export const BLOCK = 128;
/** Term frequencies up to this get their own shortest length in a list's bound; higher ones share one. */
const EXACT_TF = 32;
const BLOCK_SHIFT = 7;

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** FTS5's floor for the IDF of a term in more than half of the documents (fts5_aux.c), kept so that scores read as before. */
const MIN_IDF = 1e-6;

/** FTS5's BM25 IDF. */
export function idf(documents: number, df: number): number {
  const value = Math.log((documents - df + 0.5) / (df + 0.5));
  return value <= 0 ? MIN_IDF : value;
}

/** One term's BM25 contribution: FTS5's formula, term for term. */
export function impact(termIdf: number, tf: number, length: number, avgdl: number): number {
  return termIdf * ((tf * (BM25_K1 + 1.0)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / avgdl)));
}

export class Postings {
  docs: Int32Array = new Int32Array(4);
  tfs: Uint16Array = new Uint16Array(4);
  size = 0;
  /** Live documents holding the term (deleted ones stay in the arrays until compaction). */
  df = 0;
  blockMaxTf: Uint16Array = new Uint16Array(1);
  blockMinLength: Uint32Array = new Uint32Array(1);
  maxTf = 0;
  minLength = 0xffffffff;
  /**
   * Per term frequency t (1..EXACT_TF; the last slot for every higher one), the shortest
   * document with that frequency: the list's most a document can score is the best of these
   * pairs at the query's avgdl (Lucene's "competitive impacts"), much tighter than pairing
   * the highest tf with the shortest length, which come from different documents.
   */
  private shortestByTf: number[] = [];

  /**
   * A list built whole at load (`keyword-collection.ts`): `docs` and `tfs` hold exactly its
   * entries (views into one buffer per collection, copied on the first append).
   */
  static of(docs: Int32Array, tfs: Uint16Array, lengths: readonly number[], blockMaxTf: Uint16Array, blockMinLength: Uint32Array): Postings {
    const list = new Postings();
    list.docs = docs;
    list.tfs = tfs;
    list.size = docs.length;
    list.df = docs.length;
    list.blockMaxTf = blockMaxTf;
    list.blockMinLength = blockMinLength.fill(0xffffffff);
    for (let i = 0; i < docs.length; i++) {
      const block = i >> BLOCK_SHIFT;
      const tf = tfs[i] ?? 0;
      const length = lengths[docs[i] ?? 0] ?? 0;
      if (tf > (blockMaxTf[block] ?? 0)) blockMaxTf[block] = tf;
      if (length < (list.blockMinLength[block] ?? 0)) list.blockMinLength[block] = length;
      if (tf > list.maxTf) list.maxTf = tf;
      if (length < list.minLength) list.minLength = length;
      list.noteImpact(tf, length);
    }
    return list;
  }

  append(ordinal: number, tf: number, length: number): void {
    if (this.size === this.docs.length) {
      this.docs = grow(this.docs, new Int32Array(this.size * 2));
      this.tfs = grow(this.tfs, new Uint16Array(this.size * 2));
    }
    const block = this.size >> BLOCK_SHIFT;
    if (block >= this.blockMaxTf.length) {
      this.blockMaxTf = grow(this.blockMaxTf, new Uint16Array(block * 2));
      this.blockMinLength = grow(this.blockMinLength, new Uint32Array(block * 2).fill(0xffffffff));
    }
    if ((this.size & (BLOCK - 1)) === 0) this.blockMinLength[block] = 0xffffffff;
    const clamped = Math.min(tf, 0xffff);
    this.docs[this.size] = ordinal;
    this.tfs[this.size] = clamped;
    this.size++;
    this.df++;
    if (clamped > (this.blockMaxTf[block] ?? 0)) this.blockMaxTf[block] = clamped;
    if (length < (this.blockMinLength[block] ?? 0)) this.blockMinLength[block] = length;
    if (clamped > this.maxTf) this.maxTf = clamped;
    if (length < this.minLength) this.minLength = length;
    this.noteImpact(clamped, length);
  }

  private noteImpact(tf: number, length: number): void {
    const slot = Math.min(tf, EXACT_TF + 1);
    while (this.shortestByTf.length <= slot) this.shortestByTf.push(0xffffffff);
    if (length < (this.shortestByTf[slot] ?? 0)) this.shortestByTf[slot] = length;
  }

  /** The first position >= `from` whose ordinal is >= `target` (galloping, then binary search); `size` when none. */
  advance(from: number, target: number): number {
    const docs = this.docs;
    const size = this.size;
    if (from >= size || (docs[from] ?? 0) >= target) return from;
    let low = from;
    let step = 1;
    let high = from + 1;
    while (high < size && (docs[high] ?? 0) < target) {
      low = high;
      step <<= 1;
      high = from + step;
    }
    if (high > size) high = size;
    // docs[low] < target; docs[high] >= target or high == size.
    while (low + 1 < high) {
      const mid = (low + high) >>> 1;
      if ((docs[mid] ?? 0) < target) low = mid;
      else high = mid;
    }
    return high;
  }

  /** Term frequency of `ordinal` (0 when absent). */
  tfOf(ordinal: number): number {
    const position = this.advance(0, ordinal);
    return position < this.size && this.docs[position] === ordinal ? (this.tfs[position] ?? 0) : 0;
  }

  /** Upper bound of the impact of any document in the block holding `position`. */
  blockBound(position: number, termIdf: number, avgdl: number): number {
    const block = position >> BLOCK_SHIFT;
    return impact(termIdf, this.blockMaxTf[block] ?? 0, this.blockMinLength[block] ?? 0, avgdl);
  }

  /** Last ordinal of the block holding `position`. */
  blockLast(position: number): number {
    const end = Math.min(this.size, ((position >> BLOCK_SHIFT) + 1) << BLOCK_SHIFT);
    return this.docs[end - 1] ?? 0;
  }

  /** Upper bound of the impact of any document in the list (exact while no document was deleted). */
  bound(termIdf: number, avgdl: number): number {
    let best = 0;
    for (let tf = 1; tf < this.shortestByTf.length; tf++) {
      const length = this.shortestByTf[tf] ?? 0xffffffff;
      if (length === 0xffffffff) continue;
      // The overflow slot holds documents with tf above EXACT_TF: bounded by the highest tf.
      const value = impact(termIdf, tf > EXACT_TF ? this.maxTf : tf, length, avgdl);
      if (value > best) best = value;
    }
    return best;
  }
}

function grow<T extends Int32Array | Uint16Array | Uint32Array>(from: T, to: T): T {
  to.set(from);
  return to;
}
