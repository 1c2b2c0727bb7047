/**
 * Fusion of the vector and keyword legs of a hybrid search, as pure functions: every adapter
 * fetches both legs' ranked candidates (same scope, same filter) and fuses them here, so
 * results, sub-scores and ranks mean the same on every engine.
 *
 * - `weighted_score` (the default): weight · vector + (1 − weight) · keyword / max_keyword over
 *   COMPLETED candidates, weight 0.7 by default. The vector term is the vector leg's own score,
 *   raw (not normalised): the cosine similarity on a cosine index; on a euclidean index it is
 *   the leg's score there, minus the L2 distance (defined so that the method works on every
 *   index, but only the cosine case was measured). The keyword term is the keyword leg's score
 *   (BM25, higher is better) divided by the query's top keyword score within the scope and
 *   filter; when that top score is not above 0 (the text matched nothing, or has no terms) the
 *   keyword term is 0 and the order is the vector leg's. Completion: the candidates are the
 *   union of both legs' top `candidates`, and every one of them is scored on BOTH legs — a
 *   keyword-only candidate gets its real vector score for the query vector, a vector-only
 *   candidate its real keyword score for the query text (0 when it does not match the text).
 *   The adapter supplies those missing scores (`completionNeeded` says which, `LegCompletion`
 *   carries them); `fuse` refuses to run this method without them.
 *   Provenance: tools/retrieval/fusion-study.mjs ("cosraw a=0.75 +c") measured every family
 *   below and more on the four shared BEIR-format sets (SciFact train, CISI, Cranfield,
 *   MEDLINE; all-MiniLM-L6-v2 cosine + FTS5 BM25): this is the only fusion that beats both
 *   single legs on nDCG@10 on every set, at every depth from 20 to 1000 (nDCG@10 .738 / .453 /
 *   .420 / .805). Without completion it fails on one set.
 * - `rrf`: reciprocal rank fusion, Σ weight / (k + rank) over the legs a point appears in.
 * - `relative_score`: min-max normalisation of each leg's scores over its candidates, then
 *   the convex combination alpha · vector + (1 − alpha) · keyword (a leg the point is missing
 *   from contributes 0; a leg whose candidates all score the same normalises them to 1).
 * - `dbsf`: distribution-based score fusion (as Qdrant's): each leg's scores normalised by
 *   mean ± 3 standard deviations, clamped to [0, 1], weighted and summed.
 * Only `weighted_score` completes; the other three fuse the legs' lists as they are.
 *
 * Ties on the fused score go to the point with the better (lower) best rank in the legs' own
 * lists, then the smaller id, so the order is total and identical everywhere.
 */
import { AppError, type FusionOptions, type LegWeights } from '@lore/platform/kernel';
import type { LegScore } from './vectors.port';

export type FusionMethod = FusionOptions['method'];

export const DEFAULT_RRF_K = 60;
export const DEFAULT_ALPHA = 0.5;
/** `weighted_score`'s weight of the vector leg (the keyword leg gets 1 − weight). */
export const DEFAULT_VECTOR_WEIGHT = 0.7;
const EQUAL_WEIGHTS: LegWeights = { vector: 1, keyword: 1 };

/**
 * Lore's default fusion; change it here, and only here, with the figures.
 * tools/retrieval/fusion-study.mjs (whole documents, outside Lore) measured that weight ·
 * cosine + (1 − weight) · bm25 / top-bm25 over candidates scored on both legs ("completed") is
 * the only family that beats both legs on all four shared sets at every depth from 20 to 1000
 * (0.75: nDCG@10 .738 / .453 / .420 / .805), where RRF never does. Through Lore's own pipeline
 * (chunked at 254 tokens, chunks mapped to documents; `npm run bench:retrieval` with
 * BENCH_WEIGHTS) 0.7 is better on every set than 0.75 and 0.65: SciFact train .738 (0.75: .736,
 * 0.65: .737), CISI .449 (.448), Cranfield .415 (.412), MEDLINE .803 (.799), each above both
 * legs (vector .666 / .417 / .377 / .790, keyword .688 / .309 / .367 / .716).
 */
export const DEFAULT_FUSION: FusionOptions = { method: 'weighted_score', weight: DEFAULT_VECTOR_WEIGHT };

/** Candidates each leg contributes when a hybrid query does not say. */
export const DEFAULT_HYBRID_CANDIDATES = 100;

/** One leg's candidates, best first; ranks are their 1-based positions. */
export interface LegCandidate {
  readonly id: string;
  readonly score: number;
}

/** The order of a leg: score descending, then id, so that equal scores list the same way on every engine. */
export function byScoreThenId(a: LegCandidate, b: LegCandidate): number {
  if (a.score !== b.score) return b.score - a.score;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/**
 * Per leg: the score and the rank in that leg's own list; `rank` null when the leg did not list
 * the point and its score was completed; the leg null when it did not list the point and the
 * method does not complete (every method but `weighted_score`).
 */
export interface FusedCandidate {
  readonly id: string;
  readonly score: number;
  readonly vector: LegScore | null;
  readonly keyword: LegScore | null;
}

/**
 * The scores a completing method needs beyond the legs' lists, computed by the adapter exactly
 * as its own single-leg searches score a point (same engine function, same query):
 */
export interface LegCompletion {
  /**
   * The vector leg's score (cosine index: cosine similarity; euclidean: minus the L2 distance)
   * of every candidate that only the keyword leg listed. A candidate missing here no longer
   * exists (deleted between the adapter's requests) and is left out.
   */
  readonly vector: ReadonlyMap<string, number>;
  /**
   * The keyword leg's score (BM25 as that leg computes it, statistics and all) of the
   * candidates that only the vector leg listed and that match the query text; a candidate
   * missing here does not match it and scores 0.
   */
  readonly keyword: ReadonlyMap<string, number>;
}

/** Whether the method fuses completed candidates (so that the adapter must supply `LegCompletion`). */
export function completes(fusion: FusionOptions): boolean {
  return fusion.method === 'weighted_score';
}

/**
 * The ids whose missing scores the adapter must compute before `fuse`: per leg, the candidates
 * the OTHER leg listed and this one did not (none when the method does not complete).
 */
export function completionNeeded(
  vector: readonly LegCandidate[],
  keyword: readonly LegCandidate[],
  fusion: FusionOptions,
): { readonly vector: readonly string[]; readonly keyword: readonly string[] } {
  if (!completes(fusion)) return { vector: [], keyword: [] };
  const inVector = new Set(vector.map((c) => c.id));
  const inKeyword = new Set(keyword.map((c) => c.id));
  return {
    vector: [...new Set(keyword.map((c) => c.id).filter((id) => !inVector.has(id)))],
    keyword: [...new Set(vector.map((c) => c.id).filter((id) => !inKeyword.has(id)))],
  };
}

/** Throws AppError('validation') for out-of-range parameters. */
export function validateFusion(fusion: FusionOptions): void {
  const bad = (msg: string): never => {
    throw new AppError('validation', `fusion: ${msg}`, [{ loc: ['fusion'], msg, type: 'value_error' }]);
  };
  const checkWeights = (weights: LegWeights | undefined): void => {
    if (weights === undefined) return;
    const { vector, keyword } = weights;
    if (![vector, keyword].every((w) => typeof w === 'number' && Number.isFinite(w) && w >= 0)) bad('weights must be finite numbers >= 0');
    if (vector === 0 && keyword === 0) bad('at least one weight must be above 0');
  };
  switch (fusion.method) {
    case 'weighted_score':
      if (fusion.weight !== undefined && !(typeof fusion.weight === 'number' && Number.isFinite(fusion.weight) && fusion.weight >= 0 && fusion.weight <= 1)) {
        bad('weighted_score weight must be between 0 and 1');
      }
      return;
    case 'rrf':
      if (fusion.k !== undefined && !(Number.isFinite(fusion.k) && fusion.k >= 0)) bad('rrf k must be a finite number >= 0');
      checkWeights(fusion.weights);
      return;
    case 'relative_score':
      if (fusion.alpha !== undefined && !(Number.isFinite(fusion.alpha) && fusion.alpha >= 0 && fusion.alpha <= 1)) bad('alpha must be between 0 and 1');
      return;
    case 'dbsf':
      checkWeights(fusion.weights);
      return;
    default:
      bad(`unknown method ${String((fusion as { method: unknown }).method)}`);
  }
}

/**
 * Fuses the two legs and returns the best `limit` points. `completion` is required by a
 * completing method (`completes(fusion)`), and ignored by the others.
 */
export function fuse(vector: readonly LegCandidate[], keyword: readonly LegCandidate[], fusion: FusionOptions, limit: number, completion?: LegCompletion): FusedCandidate[] {
  validateFusion(fusion);
  if (fusion.method === 'weighted_score') {
    if (!completion) throw new Error('fuse: weighted_score fuses completed candidates; the adapter must pass the legs’ completion (see completionNeeded)');
    return weightedScore(ranked(vector), ranked(keyword), completion, fusion.weight ?? DEFAULT_VECTOR_WEIGHT, limit);
  }
  const vectorLeg = ranked(vector);
  const keywordLeg = ranked(keyword);
  const [vectorPart, keywordPart] = contributions(vectorLeg, keywordLeg, fusion);

  const ids = new Set([...vectorLeg.keys(), ...keywordLeg.keys()]);
  const fused: FusedCandidate[] = [];
  for (const id of ids) {
    const v = vectorLeg.get(id) ?? null;
    const k = keywordLeg.get(id) ?? null;
    fused.push({ id, score: (v ? vectorPart(v) : 0) + (k ? keywordPart(k) : 0), vector: v, keyword: k });
  }
  fused.sort(compareFused);
  return fused.slice(0, Math.max(0, limit));
}

export function compareFused(a: FusedCandidate, b: FusedCandidate): number {
  if (a.score !== b.score) return b.score - a.score;
  const bestA = bestRank(a);
  const bestB = bestRank(b);
  if (bestA !== bestB) return bestA - bestB;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** The better of the point's ranks in the legs' own lists (a completed score has none). */
function bestRank(candidate: FusedCandidate): number {
  return Math.min(candidate.vector?.rank ?? Infinity, candidate.keyword?.rank ?? Infinity);
}

/** First occurrence wins: a leg lists each point once, but be strict about it. */
function ranked(leg: readonly LegCandidate[]): Map<string, ListedScore> {
  const out = new Map<string, ListedScore>();
  leg.forEach((candidate, i) => {
    if (!out.has(candidate.id)) out.set(candidate.id, { score: candidate.score, rank: i + 1 });
  });
  return out;
}

/** weight · vector + (1 − weight) · keyword / max keyword, every candidate of the union scored on both legs. */
function weightedScore(vectorLeg: Map<string, ListedScore>, keywordLeg: Map<string, ListedScore>, completion: LegCompletion, weight: number, limit: number): FusedCandidate[] {
  const candidates: Array<{ id: string; vector: LegScore; keyword: LegScore }> = [];
  for (const id of new Set([...vectorLeg.keys(), ...keywordLeg.keys()])) {
    const listedVector = vectorLeg.get(id);
    const completedVector = listedVector ? undefined : completion.vector.get(id);
    // No vector score: the point is gone (every stored point has a vector).
    if (!listedVector && completedVector === undefined) continue;
    const vector = listedVector ?? { score: completedVector ?? 0, rank: null };
    const keyword = keywordLeg.get(id) ?? { score: completion.keyword.get(id) ?? 0, rank: null };
    candidates.push({ id, vector, keyword });
  }
  // The query's top keyword score in scope: the keyword leg's first, which no completed score exceeds.
  let maxKeyword = 0;
  for (const { keyword } of candidates) if (keyword.score > maxKeyword) maxKeyword = keyword.score;
  const fused: FusedCandidate[] = candidates.map(({ id, vector, keyword }) => ({
    id,
    score: weight * vector.score + (maxKeyword > 0 ? (1 - weight) * (keyword.score / maxKeyword) : 0),
    vector,
    keyword,
  }));
  fused.sort(compareFused);
  return fused.slice(0, Math.max(0, limit));
}

/** A leg's score of a point that leg listed: the rank is its position there. */
type ListedScore = LegScore & { readonly rank: number };

type Contribution = (leg: ListedScore) => number;

type ListFusion = Exclude<FusionOptions, { readonly method: 'weighted_score' }>;

function contributions(vector: Map<string, ListedScore>, keyword: Map<string, ListedScore>, fusion: ListFusion): [Contribution, Contribution] {
  switch (fusion.method) {
    case 'rrf': {
      const k = fusion.k ?? DEFAULT_RRF_K;
      const weights = fusion.weights ?? EQUAL_WEIGHTS;
      return [(leg) => weights.vector / (k + leg.rank), (leg) => weights.keyword / (k + leg.rank)];
    }
    case 'relative_score': {
      const alpha = fusion.alpha ?? DEFAULT_ALPHA;
      const v = minMax([...vector.values()]);
      const k = minMax([...keyword.values()]);
      return [(leg) => alpha * v(leg.score), (leg) => (1 - alpha) * k(leg.score)];
    }
    case 'dbsf': {
      const weights = fusion.weights ?? EQUAL_WEIGHTS;
      const v = distribution([...vector.values()]);
      const k = distribution([...keyword.values()]);
      return [(leg) => weights.vector * v(leg.score), (leg) => weights.keyword * k(leg.score)];
    }
  }
}

/** (s − min) / (max − min); 1 for every score when they are all equal. */
export function minMax(leg: readonly LegScore[]): (score: number) => number {
  let min = Infinity;
  let max = -Infinity;
  for (const { score } of leg) {
    if (score < min) min = score;
    if (score > max) max = score;
  }
  const span = max - min;
  return (score) => (span > 0 ? (score - min) / span : 1);
}

/** (s − (μ − 3σ)) / 6σ clamped to [0, 1] (population σ); 0.5 for every score when σ is 0. */
export function distribution(leg: readonly LegScore[]): (score: number) => number {
  const n = leg.length;
  if (n === 0) return () => 0;
  const mean = leg.reduce((sum, { score }) => sum + score, 0) / n;
  const sigma = Math.sqrt(leg.reduce((sum, { score }) => sum + (score - mean) ** 2, 0) / n);
  if (!(sigma > 0)) return () => 0.5;
  const low = mean - 3 * sigma;
  return (score) => Math.min(1, Math.max(0, (score - low) / (6 * sigma)));
}
