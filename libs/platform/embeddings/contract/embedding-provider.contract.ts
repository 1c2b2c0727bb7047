/**
 * The behaviour every EmbeddingProvider adapter promises (ARCHITECTURE §3.4). One provider per
 * suite (loading a model is the slow part); no test changes its state, except the last, which
 * closes a provider of its own.
 */
import { AppError } from '@lore/platform/kernel';
import { cachedQueries, cosineSimilarity, l2Norm } from '@lore/platform/embeddings/port';
import type { EmbeddingProvider } from '@lore/platform/embeddings/port';

export interface EmbeddingProviderFixture {
  readonly provider: EmbeddingProvider;
  cleanup(): Promise<void>;
}

export type EmbeddingProviderFactory = () => Promise<EmbeddingProviderFixture>;

/** Texts that stress tokenizers: accents, scripts, emoji, control characters, special-token look-alikes. */
export const TRICKY_TEXTS: readonly string[] = [
  'Hello, world!',
  'naïve café — résumé, Zürich',
  'ΟΔΟΣ, ΣΟΦΙΑΣ σοφίας.',
  '中文字符和English混合',
  'emoji 😀 test👍🏽 ok',
  'unaffable antidisestablishmentarianism',
  'a  b\t\nc\r\n\r\nd',
  '[SEP] literal [CLS] and [UNK] [unk] ##x',
  `${'x'.repeat(150)} y`,
  'e\u0301te\u0301 decomposed accents',
  'İstanbul İİ',
  '한국어 텍스트 입니다',
  'code: fn(x) => x*2; // ok <b>html</b>',
  '\u0000ctrl\u0007chars\u200b zero\u00a0width',
  'ﬁnance ½ ² Ⅻ ﾃｽﾄ',
  'ไทยภาษา עברית العربية',
  '   leading and trailing   ',
  '3.14159 1,000,000 2024-05-01T10:00:00Z',
];

const WORDS =
  'apple river mountain quantum protein galaxy violin harbor lantern meadow cobalt thunder saffron glacier ' +
  'orchid pixel tundra walnut beacon canyon falcon gossamer hazel ivory jasmine kelp lilac marble nectar onyx';

/** A text of well over `tokens` tokens whose every sentence differs (so any cut changes its meaning). */
export function longText(tokens: number): string {
  const words = WORDS.split(' ');
  const sentences: string[] = [];
  let length = 0;
  for (let i = 0; length < tokens * 12; i++) {
    const sentence = `Sentence ${i} is about ${words[i % words.length]} and ${words[(i * 7 + 3) % words.length]}.`;
    sentences.push(sentence);
    length += sentence.length + 1;
  }
  return sentences.join(' ');
}

const closeness = (a: Float32Array, b: Float32Array): number => 1 - cosineSimilarity(a, b);

export function describeEmbeddingProviderContract(name: string, factory: EmbeddingProviderFactory): void {
  describe(`${name}: EmbeddingProvider contract`, () => {
    let fixture: EmbeddingProviderFixture | undefined;
    const provider = (): EmbeddingProvider => {
      if (!fixture) throw new Error('the provider fixture is only available inside a test');
      return fixture.provider;
    };

    beforeAll(async () => {
      fixture = await factory();
    });
    afterAll(async () => {
      await fixture?.cleanup();
    });

    it('describes itself: cosine distance, positive dimensions and token limit', () => {
      const { info } = provider();
      expect(info.provider).toEqual(expect.any(String));
      expect(info.model).toEqual(expect.any(String));
      expect(Number.isInteger(info.dimensions) && info.dimensions > 0).toBe(true);
      expect(Number.isInteger(info.maxInputTokens) && info.maxInputTokens > 0).toBe(true);
      expect(info.distance).toBe('cosine');
      expect(['exact', 'approximate']).toContain(info.tokenizer);
    });

    it('returns one unit vector of info.dimensions finite numbers per text', async () => {
      const vectors = await provider().embedDocuments(['The first text.', 'A second, different text.']);
      expect(vectors).toHaveLength(2);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector).toHaveLength(provider().info.dimensions);
        expect(vector.every((x) => Number.isFinite(x))).toBe(true);
        expect(Math.abs(l2Norm(vector) - 1)).toBeLessThan(1e-3);
      }
      const query = await provider().embedQuery('A query.');
      expect(query).toHaveLength(provider().info.dimensions);
      expect(Math.abs(l2Norm(query) - 1)).toBeLessThan(1e-3);
    });

    it('is deterministic, and a query embeds as the same text does as a document', async () => {
      const text = 'Determinism: the same text always gets the same vector.';
      const [first] = await provider().embedDocuments([text]);
      const [second] = await provider().embedDocuments([text]);
      const query = await provider().embedQuery(text);
      expect(closeness(first!, second!)).toBeLessThan(1e-6);
      expect(closeness(first!, query)).toBeLessThan(1e-6);
    });

    it('returns a batch in input order, each vector equal to the text embedded alone', async () => {
      const texts = [
        'A long sentence about the migration of birds across the Mediterranean sea in autumn.',
        'Short one.',
        'Protein folding is predicted by deep learning models.',
        'x',
        'The harbour lantern was lit at dusk every evening by the keeper.',
      ];
      const batch = await provider().embedDocuments(texts);
      const alone: Float32Array[] = [];
      for (const text of texts) alone.push((await provider().embedDocuments([text]))[0]!);
      texts.forEach((_, i) => {
        expect(closeness(batch[i]!, alone[i]!)).toBeLessThan(1e-4);
        texts.forEach((__, j) => {
          if (j !== i) expect(closeness(batch[i]!, alone[j]!)).toBeGreaterThan(1e-3);
        });
      });
    });

    it('returns nothing for no texts', async () => {
      expect(await provider().embedDocuments([])).toEqual([]);
      expect(await provider().tokenize([])).toEqual([]);
    });

    it('puts a paraphrase closer than an unrelated text', async () => {
      const query = await provider().embedQuery('How do I reset my password?');
      const [paraphrase, unrelated] = await provider().embedDocuments([
        'Steps to reset your forgotten password',
        'Penguins huddle together through the Antarctic winter',
      ]);
      expect(cosineSimilarity(query, paraphrase!)).toBeGreaterThan(cosineSimilarity(query, unrelated!) + 0.1);
    });

    it('truncates a long text at maxInputTokens instead of rejecting it', async () => {
      const { maxInputTokens } = provider().info;
      const text = longText(maxInputTokens * 2);
      const [tokens] = await provider().tokenize([text]);
      expect(tokens!.count).toBeGreaterThan(maxInputTokens + 20);
      const head = text.slice(0, tokens!.ends[maxInputTokens - 1]);
      const [whole] = await provider().embedDocuments([text]);
      const [first] = await provider().embedDocuments([head]);
      // The text's vector is that of its first maxInputTokens tokens…
      expect(closeness(whole!, first!)).toBeLessThan(1e-4);
      // …and no fewer: one token less is another vector.
      const shorter = text.slice(0, tokens!.ends[maxInputTokens - 2]);
      const [firstButOne] = await provider().embedDocuments([shorter]);
      expect(closeness(first!, firstButOne!)).toBeGreaterThan(1e-6);
    });

    it('counts tokens as tokenize does, without offsets', async () => {
      const texts = [...TRICKY_TEXTS, '', longText(40)];
      const counts = await provider().countTokens(texts);
      expect(counts).toEqual((await provider().tokenize(texts)).map((t) => t.count));
      expect(await provider().countTokens([])).toEqual([]);
    });

    it('tokenizes with offsets: ordered spans inside the text, and every token-end prefix within its count', async () => {
      const texts = [...TRICKY_TEXTS, '', longText(40)];
      const results = await provider().tokenize(texts);
      expect(results).toHaveLength(texts.length);
      const prefixes: Array<{ text: string; k: number }> = [];
      results.forEach((tokens, i) => {
        const text = texts[i]!;
        expect(tokens.starts).toHaveLength(tokens.count);
        expect(tokens.ends).toHaveLength(tokens.count);
        for (let k = 0; k < tokens.count; k++) {
          expect(tokens.starts[k]!).toBeLessThanOrEqual(tokens.ends[k]!);
          expect(tokens.ends[k]!).toBeLessThanOrEqual(text.length);
          if (k > 0) {
            expect(tokens.starts[k]!).toBeGreaterThanOrEqual(tokens.starts[k - 1]!);
            expect(tokens.ends[k]!).toBeGreaterThanOrEqual(tokens.ends[k - 1]!);
          }
          prefixes.push({ text: text.slice(0, tokens.ends[k]), k: k + 1 });
        }
        if (text.trim() !== '') expect(tokens.count).toBeGreaterThan(0);
      });
      expect(results[TRICKY_TEXTS.length]!.count).toBe(0);
      const counted = await provider().tokenize(prefixes.map((p) => p.text));
      const over = prefixes.filter((p, i) => counted[i]!.count > p.k).map((p) => p.text);
      expect(over).toEqual([]);
    });

    it('serves many concurrent callers, each with its own vectors', async () => {
      const texts = Array.from({ length: 24 }, (_, i) => `Concurrent caller ${i} asks about ${WORDS.split(' ')[i]} number ${i * 7}.`);
      const alone: Float32Array[] = [];
      for (const text of texts) alone.push(await provider().embedQuery(text));
      const results = await Promise.all(
        texts.map(async (text, i) =>
          i % 3 === 0 ? [await provider().embedQuery(text)] : provider().embedDocuments(i % 3 === 1 ? [text] : [text, text]),
        ),
      );
      results.forEach((vectors, i) => {
        for (const vector of vectors) expect(closeness(vector, alone[i]!)).toBeLessThan(1e-4);
      });
    });

    it('caches query embeddings with cachedQueries: hits skip the provider, least recently used go first', async () => {
      const inner = provider();
      let calls = 0;
      const counting: EmbeddingProvider = {
        info: inner.info,
        embedDocuments: (texts) => inner.embedDocuments(texts),
        tokenize: (texts) => inner.tokenize(texts),
        countTokens: (texts) => inner.countTokens(texts),
        close: () => inner.close(),
        embedQuery: (text) => {
          calls++;
          return inner.embedQuery(text);
        },
      };
      const cached = cachedQueries(counting, { size: 2 });
      const first = await cached.embedQuery('cached query one');
      first.fill(0); // a caller's copy: mutating it does not poison the cache
      const again = await cached.embedQuery('cached query one');
      expect(calls).toBe(1);
      expect(cached.cacheStats()).toEqual({ hits: 1, misses: 1, size: 1 });
      expect(closeness(again, await inner.embedQuery('cached query one'))).toBeLessThan(1e-6);

      await Promise.all([cached.embedQuery('cached query two'), cached.embedQuery('cached query two')]);
      expect(calls).toBe(2);
      await cached.embedQuery('cached query three'); // evicts "one", the least recently used
      await cached.embedQuery('cached query two');
      expect(calls).toBe(3);
      await cached.embedQuery('cached query one');
      expect(calls).toBe(4);
      expect(cached.cacheStats()).toEqual({ hits: 3, misses: 4, size: 2 });
    });

    it('fails with unavailable once closed, and closes twice without error', async () => {
      const own = await factory();
      await own.provider.close();
      await own.provider.close();
      await expect(own.provider.embedQuery('after close')).rejects.toMatchObject({ code: 'unavailable' });
      await expect(own.provider.embedDocuments(['after close'])).rejects.toBeInstanceOf(AppError);
      await own.cleanup();
    });
  });
}
