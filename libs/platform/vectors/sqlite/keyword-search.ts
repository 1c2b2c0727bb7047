/**
 * Exact BM25 top k over in-memory postings, skipping what cannot reach the top k:
 * block-max MaxScore (Turtle & Flood's MaxScore with the per-block bounds of Ding & Suel's
 * block-max indexes, as Lucene's MaxScoreBulkScorer combines them).
 *
 * Each query term t has a bound U(t): the most it adds to any document of the list. With the
 * terms sorted by U ascending and θ the k-th best score so far, the longest prefix whose bounds
 * sum below θ is "non-essential": a document holding only those terms cannot enter the top k,
 * so only the other ("essential") lists are walked, document by document. A document found
 * there is completed on the non-essential terms, highest bound first, by skipping ahead in
 * their lists (galloping), and dropped as soon as its score plus what is left to add, bounded
 * by the current blocks' maxima, falls below θ. Real questions hold a few rare terms and many
 * common ones ("the", "of" … in most documents, whose FTS5 IDF is floored at 1e-6): the common
 * lists become non-essential after the first k documents and are only probed, never walked.
 *
 * Scores are summed in query-term order whatever the path (and by `scoreOf` for hybrid
 * completion), so a document's score is the same double everywhere; documents tied with the
 * k-th score are all kept, and the caller orders ties by id.
 */
import type { CollectionKeywords } from './keyword-collection';
import type { CandidateFilter } from './keyword-filter';
import { ACCEPTED, REJECTED } from './keyword-filter';
import type { Postings } from './keyword-postings';
import { idf, impact } from './keyword-postings';

/** Margin for bounds summed in another order than the canonical score. */
const EPSILON = 1e-9;

/** A query term present in the collection: its postings and the collection's IDF of it. */
export interface QueryTerm {
  /** Position among the query's distinct terms (the summing order). */
  readonly order: number;
  readonly postings: Postings;
  readonly idf: number;
}

/** The query's terms as the collection sees them (terms it lacks are left out: they add nothing). */
export function queryTerms(keywords: CollectionKeywords, termIds: ReadonlyArray<number | undefined>): QueryTerm[] {
  const out: QueryTerm[] = [];
  termIds.forEach((id, order) => {
    const postings = id === undefined ? undefined : keywords.postings.get(id);
    if (postings && postings.df > 0) out.push({ order, postings, idf: idf(keywords.live, postings.df) });
  });
  return out;
}

/** The BM25 score of one document (by ordinal) for these terms: what the search gives it. */
export function scoreOf(keywords: CollectionKeywords, terms: readonly QueryTerm[], ordinal: number): number {
  const length = keywords.lengths[ordinal] ?? 0;
  const avgdl = keywords.avgdl;
  let score = 0;
  for (const term of terms) {
    const tf = term.postings.tfOf(ordinal);
    if (tf > 0) score += impact(term.idf, tf, length, avgdl);
  }
  return score;
}

/** Best k (score, slot, ordinal), a min-heap on score, plus the entries tied with its minimum. */
export class TopK {
  private readonly scores: number[] = [];
  private readonly slots: number[] = [];
  private readonly ordinals: number[] = [];
  private ties: Array<[number, number, number]> = [];

  constructor(private readonly k: number) {}

  /** The score a document must reach (ties included) to matter; -Infinity until k are held. */
  threshold(): number {
    return this.scores.length < this.k ? -Infinity : (this.scores[0] ?? -Infinity);
  }

  /** Documents still wanted before the threshold rises above -Infinity. */
  missing(): number {
    return this.k - this.scores.length;
  }

  /** Offers a scored document; true when the threshold may have risen. */
  offer(score: number, slot: number, ordinal: number): boolean {
    if (this.scores.length < this.k) {
      this.scores.push(score);
      this.slots.push(slot);
      this.ordinals.push(ordinal);
      this.up(this.scores.length - 1);
      return this.scores.length === this.k;
    }
    const min = this.scores[0] ?? -Infinity;
    if (score < min) return false;
    if (score === min) {
      this.ties.push([score, slot, ordinal]);
      return false;
    }
    const evicted: [number, number, number] = [min, this.slots[0] ?? 0, this.ordinals[0] ?? 0];
    this.scores[0] = score;
    this.slots[0] = slot;
    this.ordinals[0] = ordinal;
    this.down(0);
    const next = this.scores[0] ?? -Infinity;
    this.ties = this.ties.filter((tie) => tie[0] === next);
    if (evicted[0] === next) this.ties.push(evicted);
    return true;
  }

  /** Everything held, ties included: (score, slot, ordinal). */
  entries(): Array<[number, number, number]> {
    const held = this.scores.map((score, i): [number, number, number] => [score, this.slots[i] ?? 0, this.ordinals[i] ?? 0]);
    return [...held, ...this.ties];
  }

  private up(from: number): void {
    let i = from;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if ((this.scores[parent] ?? 0) <= (this.scores[i] ?? 0)) return;
      this.swap(i, parent);
      i = parent;
    }
  }

  private down(from: number): void {
    let i = from;
    const n = this.scores.length;
    for (;;) {
      const left = 2 * i + 1;
      const right = left + 1;
      let least = i;
      if (left < n && (this.scores[left] ?? 0) < (this.scores[least] ?? 0)) least = left;
      if (right < n && (this.scores[right] ?? 0) < (this.scores[least] ?? 0)) least = right;
      if (least === i) return;
      this.swap(i, least);
      i = least;
    }
  }

  private swap(a: number, b: number): void {
    [this.scores[a], this.scores[b]] = [this.scores[b] ?? 0, this.scores[a] ?? 0];
    [this.slots[a], this.slots[b]] = [this.slots[b] ?? 0, this.slots[a] ?? 0];
    [this.ordinals[a], this.ordinals[b]] = [this.ordinals[b] ?? 0, this.ordinals[a] ?? 0];
  }
}

/**
 * Block-max MaxScore over one collection into `top` (shared across the searched collections,
 * so one collection's θ prunes the next). `filter` (null: every document) is asked only about
 * documents whose score reaches θ, gathered in batches (`keyword-filter.ts`): θ then rises only
 * at a batch's end, which delays pruning but never prunes a document that belongs in the top k.
 */
export function searchCollection(keywords: CollectionKeywords, query: readonly QueryTerm[], top: TopK, slot: number, filter: CandidateFilter | null): void {
  const terms = [...query].sort((a, b) => bound(a, keywords) - bound(b, keywords));
  const m = terms.length;
  if (m === 0) return;
  const bounds = terms.map((t) => bound(t, keywords));
  const prefix = new Float64Array(m + 1);
  for (let i = 0; i < m; i++) prefix[i + 1] = (prefix[i] ?? 0) + (bounds[i] ?? 0);
  const byOrder = terms.map((_, i) => i).sort((a, b) => (terms[a]?.order ?? 0) - (terms[b]?.order ?? 0));
  const positions = new Int32Array(m);
  const contributions = new Float64Array(m);
  const { rowids, lengths } = keywords;
  const avgdl = keywords.avgdl;
  let theta = top.threshold();
  let first = essentialStart(prefix, theta);
  // Documents up to this one were cleared by the block check below (checked once per window).
  let checkedUpTo = -1;
  // Candidates waiting for the filter's verdict, ascending, with their scores.
  const pending = new Int32Array(filter ? 1024 : 0);
  const pendingScores = new Float64Array(pending.length);
  let waiting = 0;
  let batch = filter ? filter.batch(top.missing()) : 0;
  /** Decides the waiting candidates and offers those accepted; true when the rest of the collection is better scored point by point. */
  const flush = (): boolean => {
    if (!filter || waiting === 0) return false;
    filter.decide(pending, waiting);
    const verdicts = filter.verdicts;
    let raised = false;
    for (let i = 0; i < waiting; i++) {
      const doc = pending[i] ?? 0;
      if (verdicts[doc] === ACCEPTED && top.offer(pendingScores[i] ?? 0, slot, doc)) raised = true;
    }
    waiting = 0;
    if (raised) {
      theta = top.threshold();
      first = essentialStart(prefix, theta);
    }
    batch = filter.batch(top.missing());
    return filter.few() !== null;
  };
  for (;;) {
    let doc = 0x7fffffff;
    for (let i = first; i < m; i++) {
      const list = (terms[i] as QueryTerm).postings;
      const p = positions[i] ?? 0;
      if (p < list.size) {
        const d = list.docs[p] ?? 0;
        if (d < doc) doc = d;
      }
    }
    if (doc === 0x7fffffff) {
      flush();
      return;
    }
    if (doc > checkedUpTo && theta > -Infinity) {
      // Block-max skip: up to the first end of an essential term's current block, every
      // essential posting lies in that term's current block; if those blocks' maxima plus the
      // non-essential bounds cannot reach θ, no document of the window can: skip it whole.
      let windowEnd = 0x7fffffff;
      let upper = prefix[first] ?? 0;
      for (let i = first; i < m; i++) {
        const term = terms[i] as QueryTerm;
        const p = positions[i] ?? 0;
        if (p >= term.postings.size) continue;
        const last = term.postings.blockLast(p);
        if (last < windowEnd) windowEnd = last;
        upper += term.postings.blockBound(p, term.idf, avgdl);
      }
      if (upper < theta - EPSILON) {
        for (let i = first; i < m; i++) positions[i] = (terms[i] as QueryTerm).postings.advance(positions[i] ?? 0, windowEnd + 1);
        continue;
      }
      checkedUpTo = windowEnd;
    }
    contributions.fill(0);
    const length = lengths[doc] ?? 0;
    let score = 0;
    for (let i = first; i < m; i++) {
      const term = terms[i] as QueryTerm;
      const p = positions[i] ?? 0;
      if (p < term.postings.size && term.postings.docs[p] === doc) {
        const c = impact(term.idf, term.postings.tfs[p] ?? 0, length, avgdl);
        contributions[i] = c;
        score += c;
        positions[i] = p + 1;
      }
    }
    if ((rowids[doc] ?? -1) < 0 || (filter !== null && filter.verdicts[doc] === REJECTED)) continue;
    if (first > 0 && !completes(terms, positions, contributions, first, doc, length, avgdl, score, theta, prefix)) continue;
    let total = 0;
    for (const i of byOrder) total += contributions[i] ?? 0;
    if (filter !== null && filter.verdicts[doc] !== ACCEPTED) {
      // Undecided: worth asking only if it would enter the top k (ties included) as θ stands.
      if (total < theta) continue;
      pending[waiting] = doc;
      pendingScores[waiting] = total;
      waiting++;
      if (waiting >= batch && flush()) {
        // The filter was decided for the whole collection and accepts few: score those past `doc` directly.
        const listed = filter.few() ?? [];
        scoreListed(keywords, query, top, slot, listed.slice(firstAbove(listed, doc)));
        return;
      }
      continue;
    }
    if (top.offer(total, slot, doc)) {
      theta = top.threshold();
      first = essentialStart(prefix, theta);
    }
  }
}

/** Index of the first entry of `sorted` above `value`. */
function firstAbove(sorted: readonly number[], value: number): number {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if ((sorted[mid] ?? 0) <= value) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Scores exactly the listed ordinals (ascending): for filters that accept few documents. */
export function scoreListed(keywords: CollectionKeywords, query: readonly QueryTerm[], top: TopK, slot: number, ordinals: readonly number[]): void {
  const terms = [...query].sort((a, b) => a.order - b.order);
  const positions = new Int32Array(terms.length);
  const avgdl = keywords.avgdl;
  for (const doc of ordinals) {
    if ((keywords.rowids[doc] ?? -1) < 0) continue;
    const length = keywords.lengths[doc] ?? 0;
    let score = 0;
    terms.forEach((term, i) => {
      const p = term.postings.advance(positions[i] ?? 0, doc);
      positions[i] = p;
      if (p < term.postings.size && term.postings.docs[p] === doc) score += impact(term.idf, term.postings.tfs[p] ?? 0, length, avgdl);
    });
    if (score > 0) top.offer(score, slot, doc);
  }
}

function bound(term: QueryTerm, keywords: CollectionKeywords): number {
  return term.postings.bound(term.idf, keywords.avgdl);
}

/** Terms [0, first) are non-essential: their bounds sum below θ. */
function essentialStart(prefix: Float64Array, theta: number): number {
  let first = 0;
  while (first < prefix.length - 1 && (prefix[first + 1] ?? 0) < theta - EPSILON) first++;
  return first;
}

/**
 * Adds the non-essential terms' contributions to `doc`, highest bound first; false as soon as
 * the document provably scores below θ: first by the current blocks' maxima (no skipping
 * needed), then term by term with the exact contributions found so far.
 */
function completes(
  terms: readonly QueryTerm[],
  positions: Int32Array,
  contributions: Float64Array,
  first: number,
  doc: number,
  length: number,
  avgdl: number,
  essential: number,
  theta: number,
  prefix: Float64Array,
): boolean {
  let upper = essential;
  for (let i = 0; i < first; i++) {
    const term = terms[i] as QueryTerm;
    const p = positions[i] ?? 0;
    const list = term.postings;
    if (p >= list.size || (list.docs[p] ?? 0) > doc) continue;
    upper += list.blockLast(p) >= doc ? list.blockBound(p, term.idf, avgdl) : (prefix[i + 1] ?? 0) - (prefix[i] ?? 0);
  }
  if (upper < theta - EPSILON) return false;
  let score = essential;
  for (let i = first - 1; i >= 0; i--) {
    if (score + (prefix[i + 1] ?? 0) < theta - EPSILON) return false;
    const term = terms[i] as QueryTerm;
    const list = term.postings;
    const p = list.advance(positions[i] ?? 0, doc);
    positions[i] = p;
    if (p < list.size && list.docs[p] === doc) {
      const c = impact(term.idf, list.tfs[p] ?? 0, length, avgdl);
      contributions[i] = c;
      score += c;
    }
  }
  return score >= theta - EPSILON;
}
