import { describeEmbeddingProviderContract, startTestEmbeddingServer } from '@lore/platform/embeddings/contract';
import type { TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { OpenAICompatibleEmbeddingProvider } from './openai-embeddings.adapter';

describe('OpenAI-compatible embeddings against a local HTTP server', () => {
  let server: TestEmbeddingServer;
  beforeAll(async () => {
    // The server refuses inputs of more than 200 words: the adapter must cut long texts first.
    server = await startTestEmbeddingServer({ dimensions: 96, maxInputWords: 200, apiKey: 'sk-contract' });
  });
  afterAll(() => server.close());

  describeEmbeddingProviderContract('openai-compatible', async () => {
    const provider = new OpenAICompatibleEmbeddingProvider({
      baseUrl: server.baseUrl,
      apiKey: 'sk-contract',
      model: 'bag-of-words',
      dimensions: 96,
      maxInputTokens: 120,
      maxInputsPerRequest: 8,
    });
    return { provider, cleanup: () => provider.close() };
  });
});
