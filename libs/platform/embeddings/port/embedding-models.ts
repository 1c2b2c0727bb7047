import type { EmbeddingProvider, EmbeddingProviderInfo } from './embeddings.port';

/** Names a model as a collection records it: which adapter, which model. */
export interface EmbeddingModelRef {
  readonly provider: string;
  readonly model: string;
}

/**
 * The embedding models one process offers, configured by its host. A collection records the
 * ref of the model its vectors came from and asks for that provider by it; a model that is
 * not configured (any more) is `null`, and the caller says which ones are.
 */
export interface EmbeddingModels {
  /** What a collection gets when it names no model. */
  readonly defaultModel: EmbeddingProviderInfo;
  /** Every configured model; known without loading any. */
  list(): readonly EmbeddingProviderInfo[];
  get(ref: EmbeddingModelRef): EmbeddingProvider | null;
  close(): Promise<void>;
}

export function sameModel(a: EmbeddingModelRef, b: EmbeddingModelRef): boolean {
  return a.provider === b.provider && a.model === b.model;
}
