import { createHash } from 'node:crypto';
import { LruMap, type EmbeddingModels } from '@lore/platform/embeddings/port';

/** Lines whose counts are kept: a conversation's messages come back turn after turn. */
const COUNTS_KEPT = 10_000;

export interface ContextTokenizer {
  readonly model: string;
  readonly exact: boolean;
  /** Each text's tokens, in order. */
  count(texts: readonly string[]): Promise<number[]>;
}

/**
 * The token counter of the context endpoint: the default embedding model's tokenizer, or
 * without a model an over-counting estimate (4 characters a token at most). Counts of the
 * model's are remembered by text (a hash of it: the texts themselves would hold a
 * conversation's messages in memory): the recent messages of a conversation are the same
 * lines at every turn, and counting them again was most of a context's tokenizer time.
 */
export class ContextTokenizers {
  private tokenizerWorks = false;
  private readonly counts = new LruMap<string, number>(COUNTS_KEPT);

  constructor(private readonly embeddings: EmbeddingModels) {}

  async tokenizer(): Promise<ContextTokenizer> {
    const provider = this.embeddings.get(this.embeddings.defaultModel);
    const estimate: ContextTokenizer = { model: 'estimate', exact: false, count: async (texts) => Promise.resolve(texts.map((t) => Math.ceil(t.length / 3))) };
    if (provider === null) return estimate;
    // Checked until it has worked once (a model can be installed while Lore runs), then trusted.
    if (!this.tokenizerWorks) {
      try {
        await provider.countTokens(['probe']);
        this.tokenizerWorks = true;
      } catch {
        return estimate;
      }
    }
    const model = `${provider.info.provider}/${provider.info.model}`;
    return {
      model: provider.info.model,
      exact: provider.info.tokenizer === 'exact',
      count: async (texts) => {
        const keys = texts.map((text) => keyOf(model, text));
        const counts = keys.map((key) => this.counts.get(key));
        const missing = counts.flatMap((count, i) => (count === undefined ? [i] : []));
        if (missing.length > 0) {
          const fresh = await provider.countTokens(missing.map((i) => texts[i] as string));
          missing.forEach((index, j) => {
            const count = fresh[j] ?? 0;
            counts[index] = count;
            this.counts.set(keys[index] as string, count);
          });
        }
        return counts.map((count) => count ?? 0);
      },
    };
  }
}

function keyOf(model: string, text: string): string {
  return createHash('sha256').update(model).update('\u0000').update(text).digest('base64');
}
