import { localEmbeddingOptionsFromEnv } from './local-embedding-options';
import { LocalEmbeddingProvider } from './local-embeddings.adapter';

describe('local embedding options', () => {
  it('reads MODELS_DIR, DATA_DIR (default ./data) and HF_ENDPOINT, blank meaning unset', () => {
    expect(localEmbeddingOptionsFromEnv({ MODELS_DIR: '/m', DATA_DIR: '/d', HF_ENDPOINT: 'https://mirror/' })).toEqual({
      modelsDir: '/m',
      dataDir: '/d',
      remoteHost: 'https://mirror/',
    });
    expect(localEmbeddingOptionsFromEnv({ MODELS_DIR: '  ' })).toEqual({ modelsDir: undefined, dataDir: './data', remoteHost: undefined });
  });

  it('describes all-MiniLM-L6-v2 without loading it, and needs sizes for other models', () => {
    expect(new LocalEmbeddingProvider({ modelsDir: '/nowhere' }).info).toEqual({
      provider: 'local',
      model: 'Xenova/all-MiniLM-L6-v2',
      dimensions: 384,
      distance: 'cosine',
      maxInputTokens: 254,
      tokenizer: 'exact',
    });
    expect(() => new LocalEmbeddingProvider({ model: 'Xenova/bge-small-en-v1.5' })).toThrow('configure its dimensions and maxSequenceLength');
    expect(new LocalEmbeddingProvider({ model: 'Xenova/bge-small-en-v1.5', dimensions: 384, maxSequenceLength: 512 }).info.maxInputTokens).toBe(510);
  });
});
