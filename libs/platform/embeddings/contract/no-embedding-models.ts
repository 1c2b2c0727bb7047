import type { EmbeddingModels } from '@lore/platform/embeddings/port';

/** A process with no embedding model configured: every lookup finds none. */
export const noEmbeddingModels: EmbeddingModels = {
  defaultModel: { provider: 'none', model: 'none', dimensions: 1, distance: 'cosine', maxInputTokens: 1, tokenizer: 'approximate' },
  list: () => [],
  get: () => null,
  close: () => Promise.resolve(),
};
