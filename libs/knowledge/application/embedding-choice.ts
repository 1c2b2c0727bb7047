import { createHash } from 'node:crypto';
import { invalid, unavailable } from '@lore/platform/kernel';
import type { EmbeddingModels, EmbeddingProvider, EmbeddingProviderInfo } from '@lore/platform/embeddings/port';
import type { EmbeddingModel } from '@lore/knowledge/domain';

/** Default overlap between neighbouring chunks, in tokens. */
export const DEFAULT_CHUNK_OVERLAP = 32;
/** Larger chunks than this rarely help retrieval, even where a model reads more. */
const MAX_DEFAULT_CHUNK_SIZE = 512;

export interface EmbeddingRequest {
  readonly provider?: string | undefined;
  readonly model?: string | undefined;
  readonly dimensions?: number | undefined;
  readonly distance?: 'cosine' | undefined;
}

/** The index of a model's vectors: `[a-z0-9_]`, ≤ 48 chars, the same for every collection using the model. */
export function indexNameOf(info: Pick<EmbeddingProviderInfo, 'provider' | 'model' | 'dimensions'>): string {
  const readable = `${info.provider}_${info.model}_${info.dimensions}`.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '');
  if (readable.length <= 48 && /^[a-z0-9]/.test(readable)) return readable;
  const hash = createHash('sha256').update(`${info.provider}\n${info.model}\n${info.dimensions}`).digest('hex').slice(0, 10);
  return `m${readable.slice(0, 36)}_${hash}`.replace(/_+/g, '_');
}

export function embeddingModelOf(info: EmbeddingProviderInfo): EmbeddingModel {
  return { provider: info.provider, model: info.model, dimensions: info.dimensions, distance: info.distance, maxInputTokens: info.maxInputTokens, index: indexNameOf(info) };
}

/** The configured model a request names (or the default), else a 422 listing the configured ones. */
export function chooseModel(models: EmbeddingModels, request: EmbeddingRequest | null | undefined): EmbeddingModel {
  const wanted = request ?? {};
  const available = models.list();
  const candidates = available.filter((m) => (wanted.provider === undefined || m.provider === wanted.provider) && (wanted.model === undefined || m.model === wanted.model));
  const preferred = candidates.find((m) => m.provider === models.defaultModel.provider && m.model === models.defaultModel.model) ?? candidates[0];
  if (preferred === undefined) {
    const known = available.map((m) => `${m.provider}/${m.model}`).join(', ');
    throw invalid(['message', 'embedding', wanted.model === undefined ? 'provider' : 'model'], `Embedding model not configured; available: ${known}`);
  }
  if (wanted.dimensions !== undefined && wanted.dimensions !== preferred.dimensions) {
    throw invalid(['message', 'embedding', 'dimensions'], `${preferred.model} produces ${preferred.dimensions}-dimensional vectors`);
  }
  return embeddingModelOf(preferred);
}

/** Chunking settings checked against the model: every chunk must fit what the model reads. */
export function chunkingSettings(model: EmbeddingModel, requested: { chunk_size?: number | undefined; chunk_overlap?: number | undefined } | null | undefined): { chunk_size: number; chunk_overlap: number } {
  const chunkSize = requested?.chunk_size ?? Math.min(model.maxInputTokens, MAX_DEFAULT_CHUNK_SIZE);
  if (chunkSize > model.maxInputTokens) {
    throw invalid(['message', 'settings', 'chunk_size'], `chunk_size must be at most ${model.maxInputTokens}, the tokens ${model.model} reads`);
  }
  const overlap = requested?.chunk_overlap ?? Math.min(DEFAULT_CHUNK_OVERLAP, Math.floor(chunkSize / 4));
  if (overlap * 2 >= chunkSize) throw invalid(['message', 'settings', 'chunk_overlap'], `chunk_overlap must be less than half of chunk_size (${chunkSize})`);
  return { chunk_size: chunkSize, chunk_overlap: overlap };
}

/** The provider of a collection's model; a model no longer configured is a clear 503. */
export function providerOf(models: EmbeddingModels, model: EmbeddingModel): EmbeddingProvider {
  const provider = models.get(model);
  if (provider === null) throw unavailable(`embedding model ${model.provider}/${model.model} of this collection is not configured in this service`);
  return provider;
}

