/**
 * A filter as the keyword search sees it: per ordinal of one collection, whether the filter
 * accepts the document, decided on demand. The search (`keyword-search.ts`) asks only about
 * documents that would enter the top k, in batches, so a residual filter (metadata, tags, $or …)
 * is evaluated in SQL on a few hundred candidates instead of on every point of the collection.
 *
 * A candidate batch is checked with `rowid IN (…)`, or, when its rowids are dense (as before the
 * top k fills, when every document holding a query term is a candidate), with a rowid range
 * scan, which costs several times less per row than a lookup.
 *
 * A selective filter makes the search ask about many candidates before k pass (the threshold
 * stays low). Checking a candidate costs about what scanning six points does (measured: ~2 µs
 * against ~0.35 µs of CPU at 100k), and a search asks about roughly five times the candidates
 * it takes to fill the top k, so once the acceptance rate seen projects more checks than a
 * sixth of the collection, the filter is evaluated on the whole collection at once (one scan of
 * the points, as the exact path always did) and, when it accepts few documents, the search
 * scores just those.
 */
import type { CollectionKeywords } from './keyword-collection';

export const UNDECIDED = 0;
export const ACCEPTED = 1;
export const REJECTED = 2;

/** A whole-collection evaluation accepting at most 1 in this many documents is scored point by point. */
export const FEW_FILTERED = 16;
/** Candidates asked about before the acceptance rate is trusted to project the cost. */
const SAMPLE = 256;
/** Candidates a search asks about, as a multiple of those it takes to fill the top k (measured on real queries: ~5). */
const CHECKS_PER_FILL = 5;
/** Points scanned for the cost of one candidate check. */
const SCAN_PER_CHECK = 6;
/** A batch whose rowids span at most this many times its size is checked by a range scan. */
const DENSE = 4;
/** Smallest and largest batch of candidates checked at once. */
const MIN_BATCH = 32;
const MAX_BATCH = 1024;

export interface CandidateFilter {
  /** Per ordinal: UNDECIDED, ACCEPTED or REJECTED. */
  readonly verdicts: Uint8Array;
  /** Decides `ordinals[0, count)` (and possibly every other ordinal too). */
  decide(ordinals: Int32Array, count: number): void;
  /** How many candidates to gather before deciding them, when `missing` more are needed to fill the top k. */
  batch(missing: number): number;
  /** Once the whole collection is decided and few are accepted: those ordinals, ascending; else null. */
  few(): readonly number[] | null;
}

/** Accepted ordinals of a whole collection, from the rowids the filter accepts. */
function acceptedOrdinals(keywords: CollectionKeywords, rowids: readonly number[]): number[] {
  const ordinals: number[] = [];
  for (const rowid of rowids) {
    const ordinal = keywords.ordinalOf.get(rowid);
    if (ordinal !== undefined) ordinals.push(ordinal);
  }
  return ordinals.sort((a, b) => a - b);
}

/** A filter decided for the whole collection up front (one SQL pass): for conditions an index answers. */
export class DecidedFilter implements CandidateFilter {
  readonly verdicts: Uint8Array;
  private readonly listed: number[] | null;

  constructor(keywords: CollectionKeywords, acceptedRowids: readonly number[]) {
    const ordinals = acceptedOrdinals(keywords, acceptedRowids);
    this.verdicts = new Uint8Array(keywords.rowids.length).fill(REJECTED);
    for (const ordinal of ordinals) this.verdicts[ordinal] = ACCEPTED;
    this.listed = ordinals.length * FEW_FILTERED <= keywords.rowids.length ? ordinals : null;
  }

  decide(): void {
    // Everything is decided already.
  }

  batch(): number {
    return 1;
  }

  few(): readonly number[] | null {
    return this.listed;
  }
}

/** The SQL side: which of the given rowids (or of a rowid range) the filter accepts, and every accepted rowid of the collection. */
export interface FilterSql {
  accepting(rowids: readonly number[]): readonly number[];
  acceptingBetween(low: number, high: number): readonly number[];
  all(): readonly number[];
}

/** A filter decided on the candidates the search asks about (see the header). */
export class LazyFilter implements CandidateFilter {
  readonly verdicts: Uint8Array;
  private checked = 0;
  private accepted = 0;
  private listed: number[] | null = null;
  private whole = false;
  private readonly budget: number;

  constructor(
    private readonly keywords: CollectionKeywords,
    private readonly sql: FilterSql,
    private readonly k: number,
  ) {
    this.verdicts = new Uint8Array(keywords.rowids.length);
    this.budget = Math.max(MAX_BATCH, keywords.live / SCAN_PER_CHECK);
  }

  decide(ordinals: Int32Array, count: number): void {
    if (this.whole) return;
    if (this.checked + count > this.budget || (this.checked >= SAMPLE && this.projected() > this.budget)) {
      this.decideAll();
      return;
    }
    const rowids: number[] = [];
    let low = Infinity;
    let high = -Infinity;
    for (let i = 0; i < count; i++) {
      const rowid = this.keywords.rowids[ordinals[i] ?? 0] ?? -1;
      rowids.push(rowid);
      if (rowid < low) low = rowid;
      if (rowid > high) high = rowid;
    }
    const dense = high - low < DENSE * count;
    const accepted = new Set(dense ? this.sql.acceptingBetween(low, high) : this.sql.accepting(rowids));
    for (let i = 0; i < count; i++) {
      const ordinal = ordinals[i] ?? 0;
      const yes = accepted.has(rowids[i] ?? -1);
      this.verdicts[ordinal] = yes ? ACCEPTED : REJECTED;
      if (yes) this.accepted++;
    }
    this.checked += count;
  }

  batch(missing: number): number {
    if (missing <= 0) return MIN_BATCH;
    // Enough candidates to fill the top k at the acceptance rate seen so far (a guess at first).
    const rate = (this.accepted + 1) / (this.checked + 2);
    return Math.min(MAX_BATCH, Math.max(MIN_BATCH, Math.ceil((missing * 1.5) / rate)));
  }

  few(): readonly number[] | null {
    return this.listed;
  }

  /** Candidates the search will ask about, at the rate seen so far. */
  private projected(): number {
    return this.accepted === 0 ? Infinity : (CHECKS_PER_FILL * this.checked * this.k) / this.accepted;
  }

  private decideAll(): void {
    const ordinals = acceptedOrdinals(this.keywords, this.sql.all());
    this.verdicts.fill(REJECTED);
    for (const ordinal of ordinals) this.verdicts[ordinal] = ACCEPTED;
    this.whole = true;
    this.listed = ordinals.length * FEW_FILTERED <= this.keywords.rowids.length ? ordinals : null;
  }
}
