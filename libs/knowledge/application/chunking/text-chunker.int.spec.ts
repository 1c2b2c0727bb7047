import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeWithModels, repoRoot } from '@lore/platform/embeddings/contract';
import { LocalEmbeddingProvider } from '@lore/platform/embeddings/local';
import { chunkText } from './text-chunker';
import type { ChunkingSettings, TextChunk } from './text-chunker';

/** The first `n` SciFact documents (title and abstract), as paragraphs. */
function scifactDocuments(n: number): string[] {
  const corpus = join(repoRoot(), '../shared/data/scifact-train/corpus.jsonl');
  return readFileSync(corpus, 'utf8')
    .split('\n', n)
    .map((line) => JSON.parse(line) as { title: string; text: string })
    .map((doc) => `${doc.title}\n\n${doc.text}`);
}

describeWithModels('text chunker with the local model tokenizer', (modelsDir) => {
  const provider = new LocalEmbeddingProvider({ modelsDir, download: false });
  const tokenize = (texts: readonly string[]) => provider.tokenize(texts);
  afterAll(() => provider.close());

  /** Re-counts every chunk with the model's tokenizer; checks offsets, order and coverage. */
  async function expectWithinLimit(source: string, settings: ChunkingSettings, chunks: TextChunk[]): Promise<void> {
    const counts = (await provider.tokenize(chunks.map((c) => c.text))).map((t) => t.count);
    expect(counts).toEqual(chunks.map((c) => c.tokens));
    expect(Math.max(...counts)).toBeLessThanOrEqual(settings.chunkSize);
    expect(chunks.every((c, i) => c.index === i && source.slice(c.start, c.end) === c.text)).toBe(true);
    expect(chunks.every((c, i) => i === 0 || (c.start > chunks[i - 1]!.start && c.end > chunks[i - 1]!.end))).toBe(true);
    const covered = new Uint8Array(source.length);
    for (const c of chunks) covered.fill(1, c.start, c.end);
    const uncovered: number[] = [];
    for (let i = 0; i < source.length; i++) if (covered[i] === 0 && /\S/.test(source[i]!)) uncovered.push(i);
    expect(uncovered).toEqual([]);
  }

  it.each([
    { chunkSize: 254, chunkOverlap: 32 },
    { chunkSize: 254, chunkOverlap: 0 },
    { chunkSize: 64, chunkOverlap: 8 },
  ])('keeps every chunk of real abstracts within the limit (%o)', async (settings) => {
    const source = scifactDocuments(40).join('\n\n');
    let calls = 0;
    const chunks = await chunkText(source, settings, (texts) => (calls++, tokenize(texts)));
    await expectWithinLimit(source, settings, chunks);
    // WordPiece reads a piece that starts at a word like the same words in the whole text: the
    // source's tokens place every cut exactly, so the re-count (the second call) cuts nothing again.
    expect(calls).toBe(2);
    // Greedy packing: chunks are full, not one sentence each.
    const mean = chunks.reduce((sum, c) => sum + c.tokens, 0) / chunks.length;
    expect(mean).toBeGreaterThan(settings.chunkSize * 0.6);
  });

  it('splits runs without spaces within the limit', async () => {
    const settings = { chunkSize: 64, chunkOverlap: 8 };
    const url = `https://example.org/${Array.from({ length: 300 }, (_, i) => `segment-${i}`).join('/')}?q=${'ab12'.repeat(50)}`;
    for (const source of ['x'.repeat(5000), url, `See ${url} and ${'x'.repeat(5000)} then stop.`]) {
      const chunks = await chunkText(source, settings, tokenize);
      await expectWithinLimit(source, settings, chunks);
    }
    // The URL is about 1200 tokens (letters, digits and punctuation): cut at token ends into full chunks.
    const urlChunks = await chunkText(url, settings, tokenize);
    expect(urlChunks.length).toBeGreaterThan(15);
    expect(urlChunks.slice(0, -1).every((c) => c.tokens === settings.chunkSize)).toBe(true);
  });

  it('handles Hangul, whose jamo tokens cannot be placed, and other scripts', async () => {
    const settings = { chunkSize: 32, chunkOverlap: 4 };
    const source = ['한국어텍스트분할'.repeat(60), '中文文本。'.repeat(40), 'naïve café 😀 '.repeat(30)].join('\n\n');
    const chunks = await chunkText(source, settings, tokenize);
    await expectWithinLimit(source, settings, chunks);
    expect(chunks.length).toBeGreaterThan(10);
  });
});
