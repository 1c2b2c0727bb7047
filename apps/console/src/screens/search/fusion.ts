/** The hybrid search's fusion as the API takes it (`fusion` of `POST /api/v1/collections/search`). */
export type Fusion =
  | { readonly method: 'weighted_score'; readonly weight: number }
  | { readonly method: 'rrf'; readonly k: number; readonly weights: { readonly vector: number; readonly keyword: number } }
  | { readonly method: 'relative_score'; readonly alpha: number }
  | { readonly method: 'dbsf'; readonly weights: { readonly vector: number; readonly keyword: number } };

export type FusionMethod = Fusion['method'];

/** Each method with the API's defaults (README "Search"). */
export const DEFAULT_FUSIONS: { readonly [M in FusionMethod]: Extract<Fusion, { method: M }> } = {
  weighted_score: { method: 'weighted_score', weight: 0.7 },
  rrf: { method: 'rrf', k: 60, weights: { vector: 1, keyword: 1 } },
  relative_score: { method: 'relative_score', alpha: 0.5 },
  dbsf: { method: 'dbsf', weights: { vector: 1, keyword: 1 } },
};

export const FUSION_METHODS = [
  { value: 'weighted_score', label: 'Weighted score (default)' },
  { value: 'rrf', label: 'Reciprocal rank fusion' },
  { value: 'relative_score', label: 'Relative score' },
  { value: 'dbsf', label: 'Distribution-based score fusion' },
] as const;
