import { embeddingCharacters, embeddingDuration, embeddingTexts, secondsSince } from '@lore/platform/telemetry';
import type { EmbeddingProvider } from './embeddings.port';

/**
 * A provider whose embedding calls are counted (texts and characters) and timed, by provider
 * and model: the embedding throughput of the process. Wraps the provider itself, under the
 * query cache, so only texts the model really embeds count. Characters, not tokens: counting
 * tokens would tokenize every text a second time.
 */
export function measuredEmbeddings(provider: EmbeddingProvider): EmbeddingProvider {
  const { provider: name, model } = provider.info;
  const labels = { document: { provider: name, model, kind: 'document' }, query: { provider: name, model, kind: 'query' } } as const;
  async function measure<T>(kind: 'document' | 'query', texts: readonly string[], work: () => Promise<T>): Promise<T> {
    const started = process.hrtime.bigint();
    let outcome = 'ok';
    try {
      const result = await work();
      embeddingTexts.inc(labels[kind], texts.length);
      embeddingCharacters.inc(labels[kind], texts.reduce((sum, text) => sum + text.length, 0));
      return result;
    } catch (error) {
      outcome = 'error';
      throw error;
    } finally {
      embeddingDuration.observe({ ...labels[kind], outcome }, secondsSince(started));
    }
  }
  return {
    info: provider.info,
    embedDocuments: (texts) => (texts.length === 0 ? provider.embedDocuments(texts) : measure('document', texts, () => provider.embedDocuments(texts))),
    embedQuery: (text) => measure('query', [text], () => provider.embedQuery(text)),
    tokenize: (texts) => provider.tokenize(texts),
    countTokens: (texts) => provider.countTokens(texts),
    close: () => provider.close(),
  };
}
