import type { EmbeddingModels, EmbeddingProvider, EmbeddingProviderInfo } from '@lore/platform/embeddings/port';
import { ContextTokenizers } from './context-tokenizer';

const INFO: EmbeddingProviderInfo = { provider: 'local', model: 'words', dimensions: 2, distance: 'cosine', maxInputTokens: 100, tokenizer: 'exact' };

/** A provider whose tokens are words, recording the texts it is asked to count. */
function wordCounter(): { models: EmbeddingModels; asked: string[] } {
  const asked: string[] = [];
  const words = (text: string): number => text.split(/\s+/u).filter(Boolean).length;
  const provider: EmbeddingProvider = {
    info: INFO,
    embedDocuments: async () => Promise.reject(new Error('not used')),
    embedQuery: async () => Promise.reject(new Error('not used')),
    tokenize: async () => Promise.reject(new Error('the context counts tokens without offsets')),
    countTokens: async (texts) => {
      asked.push(...texts);
      return Promise.resolve(texts.map(words));
    },
    close: async () => Promise.resolve(),
  };
  const models: EmbeddingModels = { defaultModel: INFO, list: () => [INFO], get: () => provider, close: async () => Promise.resolve() };
  return { models, asked };
}

describe('ContextTokenizers', () => {
  it("counts with the model's countTokens and asks it only for lines it has not counted before", async () => {
    const { models, asked } = wordCounter();
    const tokenizers = new ContextTokenizers(models);
    const tokenizer = await tokenizers.tokenizer();
    expect(tokenizer).toMatchObject({ model: 'words', exact: true });
    expect(await tokenizer.count(['user: hello there', 'assistant: hi', 'one two three'])).toEqual([3, 2, 3]);
    asked.length = 0;
    // The next turn: the same messages, one new line.
    expect(await (await tokenizers.tokenizer()).count(['assistant: hi', 'user: and now four words', 'user: hello there'])).toEqual([2, 5, 3]);
    expect(asked).toEqual(['user: and now four words']);
  });
});
