import { z } from 'zod';
import { envInt, envOptional } from '@lore/platform/kernel';
import type { Egress } from '@lore/platform/egress/port';
import type { Rerankers, RerankProvider } from '@lore/platform/rerank/port';
import { HttpRerankProvider, type RerankApi } from '@lore/platform/rerank/http';
import { DEFAULT_LOCAL_RERANK_MODEL, LocalCrossEncoderProvider } from '@lore/platform/rerank/local';
import { localEmbeddingOptionsFromEnv } from '@lore/platform/embeddings/local';
import { join } from 'node:path';

/**
 * The rerank providers of a process, from its environment (README: Re-ranking, Configuration).
 * The local cross-encoder is always offered (it loads nothing until used, and answers 503 while
 * its files are missing); each rerank API is added when its base URL or key is set. Calls go
 * through the process's egress, so LORE_EGRESS_ALLOW and LORE_EGRESS_PROXY apply.
 */
const Env = z.object({
  RERANK_DEFAULT_PROVIDER: envOptional.pipe(z.enum(['local', 'cohere', 'jina', 'tei', 'vllm']).optional()),
  RERANK_TIMEOUT_MS: envInt(10_000),
  RERANK_LOCAL_MODEL: z.string().min(1).default(DEFAULT_LOCAL_RERANK_MODEL),
  RERANK_LOCAL_DTYPE: z.enum(['q8', 'fp32']).default('q8'),
  RERANK_COHERE_API_KEY: envOptional,
  RERANK_COHERE_BASE_URL: envOptional.pipe(z.url().optional()),
  RERANK_COHERE_MODEL: z.string().min(1).default('rerank-v3.5'),
  RERANK_JINA_API_KEY: envOptional,
  RERANK_JINA_BASE_URL: envOptional.pipe(z.url().optional()),
  RERANK_JINA_MODEL: z.string().min(1).default('jina-reranker-v2-base-multilingual'),
  RERANK_TEI_BASE_URL: envOptional.pipe(z.url().optional()),
  RERANK_TEI_API_KEY: envOptional,
  RERANK_TEI_MODEL: z.string().min(1).default('tei'),
  RERANK_VLLM_BASE_URL: envOptional.pipe(z.url().optional()),
  RERANK_VLLM_API_KEY: envOptional,
  RERANK_VLLM_MODEL: z.string().min(1).default('BAAI/bge-reranker-v2-m3'),
});

/** Hosted APIs default to their public address once a key is given. */
const PUBLIC_BASE_URLS: Partial<Record<RerankApi, string>> = { cohere: 'https://api.cohere.com', jina: 'https://api.jina.ai' };

export function openRerankers(egress: Egress, env: NodeJS.ProcessEnv = process.env): Rerankers {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    throw new Error(`Invalid rerank configuration: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  }
  const e = parsed.data;
  const local = localEmbeddingOptionsFromEnv(env);
  const providers: RerankProvider[] = [
    new LocalCrossEncoderProvider({ model: e.RERANK_LOCAL_MODEL, dtype: e.RERANK_LOCAL_DTYPE, modelsDir: local.modelsDir, cacheDir: join(local.dataDir ?? './data', 'models') }),
  ];
  const apis: ReadonlyArray<{ api: RerankApi; baseUrl: string | undefined; apiKey: string | undefined; model: string }> = [
    { api: 'cohere', baseUrl: e.RERANK_COHERE_BASE_URL, apiKey: e.RERANK_COHERE_API_KEY, model: e.RERANK_COHERE_MODEL },
    { api: 'jina', baseUrl: e.RERANK_JINA_BASE_URL, apiKey: e.RERANK_JINA_API_KEY, model: e.RERANK_JINA_MODEL },
    { api: 'tei', baseUrl: e.RERANK_TEI_BASE_URL, apiKey: e.RERANK_TEI_API_KEY, model: e.RERANK_TEI_MODEL },
    { api: 'vllm', baseUrl: e.RERANK_VLLM_BASE_URL, apiKey: e.RERANK_VLLM_API_KEY, model: e.RERANK_VLLM_MODEL },
  ];
  for (const { api, baseUrl, apiKey, model } of apis) {
    const url = baseUrl ?? (apiKey === undefined ? undefined : PUBLIC_BASE_URLS[api]);
    if (url !== undefined) providers.push(new HttpRerankProvider(egress, { api, baseUrl: url, apiKey, model, timeoutMs: e.RERANK_TIMEOUT_MS }));
  }
  const defaultProvider = e.RERANK_DEFAULT_PROVIDER ?? providers.find((p) => p.info.provider !== 'local')?.info.provider ?? 'local';
  if (!providers.some((p) => p.info.provider === defaultProvider)) {
    throw new Error(`RERANK_DEFAULT_PROVIDER=${defaultProvider} is not configured: set RERANK_${defaultProvider.toUpperCase()}_BASE_URL or _API_KEY`);
  }
  return {
    defaultProvider,
    list: () => providers.map((p) => p.info),
    get: (name) => providers.find((p) => p.info.provider === name) ?? null,
    async close() {
      await Promise.all(providers.map((p) => p.close()));
    },
  };
}
