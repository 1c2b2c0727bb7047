import { z } from 'zod';
import { envInt, envOptional, envSwitch } from '@lore/platform/kernel';
import { cachedQueries, measuredEmbeddings, type EmbeddingModels, type EmbeddingProvider } from '@lore/platform/embeddings/port';
import { DEFAULT_LOCAL_MODEL, LocalEmbeddingProvider, localEmbeddingOptionsFromEnv } from '@lore/platform/embeddings/local';
import { OpenAICompatibleEmbeddingProvider } from '@lore/platform/embeddings/openai';

/**
 * The embedding models of a process, from its environment (the README lists the variables).
 * The local model is always offered; an OpenAI-compatible server is added when
 * EMBEDDING_OPENAI_BASE_URL is set. Providers load nothing until first used, so a process
 * without the model files starts and serves everything that needs no embedding.
 */
const Env = z.object({
  EMBEDDING_DEFAULT_PROVIDER: z.enum(['local', 'openai-compatible']).default('local'),
  EMBEDDING_LOCAL_MODEL: z.string().min(1).default(DEFAULT_LOCAL_MODEL),
  EMBEDDING_LOCAL_DTYPE: z.enum(['q8', 'fp32']).default('q8'),
  EMBEDDING_LOCAL_THREADS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(256).optional()),
  EMBEDDING_LOCAL_DOWNLOAD: envSwitch(true),
  EMBEDDING_LOCAL_WORKERS: z.preprocess((v) => (v === '' ? undefined : v), z.coerce.number().int().min(1).max(64).optional()),
  EMBEDDING_OPENAI_BASE_URL: envOptional.pipe(z.url().optional()),
  EMBEDDING_OPENAI_API_KEY: envOptional,
  EMBEDDING_OPENAI_MODEL: z.string().min(1).default('text-embedding-3-small'),
  EMBEDDING_OPENAI_DIMENSIONS: envInt(1536),
  EMBEDDING_OPENAI_MAX_INPUT_TOKENS: envInt(8191),
  EMBEDDING_OPENAI_AZURE_API_VERSION: envOptional,
  EMBEDDING_QUERY_CACHE_SIZE: envInt(1000),
});

export function openEmbeddingModels(env: NodeJS.ProcessEnv = process.env): EmbeddingModels {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid embedding configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  const cache = { size: e.EMBEDDING_QUERY_CACHE_SIZE };
  const providers: EmbeddingProvider[] = [
    cachedQueries(
      measuredEmbeddings(
        new LocalEmbeddingProvider({
          ...localEmbeddingOptionsFromEnv(env),
          model: e.EMBEDDING_LOCAL_MODEL,
          dtype: e.EMBEDDING_LOCAL_DTYPE,
          threads: e.EMBEDDING_LOCAL_THREADS,
          workers: e.EMBEDDING_LOCAL_WORKERS,
          download: e.EMBEDDING_LOCAL_DOWNLOAD,
        }),
      ),
      cache,
    ),
  ];
  if (e.EMBEDDING_OPENAI_BASE_URL !== undefined) {
    providers.push(
      cachedQueries(
        measuredEmbeddings(new OpenAICompatibleEmbeddingProvider({
          baseUrl: e.EMBEDDING_OPENAI_BASE_URL,
          apiKey: e.EMBEDDING_OPENAI_API_KEY,
          model: e.EMBEDDING_OPENAI_MODEL,
          dimensions: e.EMBEDDING_OPENAI_DIMENSIONS,
          maxInputTokens: e.EMBEDDING_OPENAI_MAX_INPUT_TOKENS,
          ...(e.EMBEDDING_OPENAI_AZURE_API_VERSION === undefined ? {} : { azure: { apiVersion: e.EMBEDDING_OPENAI_AZURE_API_VERSION } }),
        })),
        cache,
      ),
    );
  }
  const defaultProvider = providers.find((p) => p.info.provider === e.EMBEDDING_DEFAULT_PROVIDER);
  if (defaultProvider === undefined) throw new Error('EMBEDDING_DEFAULT_PROVIDER=openai-compatible needs EMBEDDING_OPENAI_BASE_URL');
  return {
    defaultModel: defaultProvider.info,
    list: () => providers.map((p) => p.info),
    get: (ref) => providers.find((p) => p.info.provider === ref.provider && p.info.model === ref.model) ?? null,
    async close() {
      await Promise.all(providers.map((p) => p.close()));
    },
  };
}
