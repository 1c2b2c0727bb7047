/**
 * Fusion of the vector and keyword legs of a hybrid search, as pure functions: every adapter
 * fetches both legs' ranked candidates (same scope, same filter) and fuses them here, so
 * results, sub-scores and ranks mean the same on every engine.
 *
 * - `rrf`: reciprocal rank fusion, Σ weight / (k + rank) over the legs a point appears in.
 * - `relative_score`: min-max normalisation of each leg's scores over its candidates, then
 *   the convex combination alpha · vector + (1 − alpha) · keyword (a leg the point is missing
 *   from contributes 0; a leg whose candidates all score the same normalises them to 1).
 * - `dbsf`: distribution-based score fusion (as Qdrant's): each leg's scores normalised by
 *   mean ± 3 standard deviations, clamped to [0, 1], weighted and summed.
 *
 * Ties on the fused score go to the point with the better (lower) best rank, then the
 * smaller id, so the order is total and identical everywhere.
 */
import { AppError } from '@lore/platform/kernel';
import type { LegScore } from './vectors.port';

export interface LegWeights {
  readonly vector: number;
  readonly keyword: number;
}

export type FusionOptions =
  | { readonly method: 'rrf'; readonly k?: number; readonly weights?: LegWeights }
  | { readonly method: 'relative_score'; readonly alpha?: number }
  | { readonly method: 'dbsf'; readonly weights?: LegWeights };

export type FusionMethod = FusionOptions['method'];

export const DEFAULT_RRF_K = 60;
export const DEFAULT_ALPHA = 0.5;
const EQUAL_WEIGHTS: LegWeights = { vector: 1, keyword: 1 };

/**
 * Lore's default fusion; change it here, and only here, with the figures. Provisional:
 * tools/retrieval/fusion-study.mjs measured that RRF never beats both legs on all four shared
 * sets, while 0.75 · cosine + 0.25 · bm25 / top-bm25 over candidates scored on both legs
 * ("completed") does at every depth from 20 to 1000 (nDCG@10 .738 / .453 / .420 / .805).
 * That method, with completion in both adapters, is the next step of the knowledge search.
 */
export const DEFAULT_FUSION: FusionOptions = { method: 'rrf', k: DEFAULT_RRF_K, weights: EQUAL_WEIGHTS };

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

export interface FusedCandidate {
  readonly id: string;
  readonly score: number;
  readonly vector: LegScore | null;
  readonly keyword: LegScore | null;
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

/** Fuses the two legs and returns the best `limit` points. */
export function fuse(vector: readonly LegCandidate[], keyword: readonly LegCandidate[], fusion: FusionOptions, limit: number): FusedCandidate[] {
  validateFusion(fusion);
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
  const bestA = Math.min(a.vector?.rank ?? Infinity, a.keyword?.rank ?? Infinity);
  const bestB = Math.min(b.vector?.rank ?? Infinity, b.keyword?.rank ?? Infinity);
  if (bestA !== bestB) return bestA - bestB;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

/** First occurrence wins: a leg lists each point once, but be strict about it. */
function ranked(leg: readonly LegCandidate[]): Map<string, LegScore> {
  const out = new Map<string, LegScore>();
  leg.forEach((candidate, i) => {
    if (!out.has(candidate.id)) out.set(candidate.id, { score: candidate.score, rank: i + 1 });
  });
  return out;
}

type Contribution = (leg: LegScore) => number;

function contributions(vector: Map<string, LegScore>, keyword: Map<string, LegScore>, fusion: FusionOptions): [Contribution, Contribution] {
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
