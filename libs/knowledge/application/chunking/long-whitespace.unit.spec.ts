import type { Tokenization } from '@lore/platform/embeddings/port';
import { chunkText } from './text-chunker';

/** Every run of non-whitespace is one token: enough to show what whitespace does. */
async function words(texts: readonly string[]): Promise<Tokenization[]> {
  return texts.map((text) => {
    const starts: number[] = [];
    const ends: number[] = [];
    for (const m of text.matchAll(/\S+/g)) {
      starts.push(m.index);
      ends.push(m.index + m[0].length);
    }
    return { count: starts.length, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
  });
}

describe('chunkText on texts with long runs of whitespace', () => {
  it('cuts at a long run of whitespace instead of holding it in a chunk, and stays fast', async () => {
    const text = `first begins here.${' '.repeat(2_500_000)}last ends here.`;
    const chunks = await chunkText(text, { chunkSize: 254, chunkOverlap: 32 }, words);
    expect(chunks.map((c) => c.text)).toEqual(['first begins here.', 'last ends here.']);
    expect(chunks.map((c) => text.slice(c.start, c.end))).toEqual(['first begins here.', 'last ends here.']);
    expect(chunks.map((c) => [c.index, c.tokens])).toEqual([
      [0, 3],
      [1, 3],
    ]);
  });

  it('sends the tokenizer segments of many characters, not one per whitespace character', async () => {
    const lengths: number[] = [];
    const counting = async (texts: readonly string[]): Promise<Tokenization[]> => {
      lengths.push(...texts.map((t) => t.length));
      return words(texts);
    };
    await chunkText(`a${' \n'.repeat(300_000)}b`, { chunkSize: 16, chunkOverlap: 0 }, counting);
    expect(lengths.length).toBeLessThan(40);
  });

  it('keeps short runs of whitespace inside chunks', async () => {
    const text = `one two${' '.repeat(100)}three four`;
    const chunks = await chunkText(text, { chunkSize: 254, chunkOverlap: 0 }, words);
    expect(chunks.map((c) => c.text)).toEqual([text]);
  });
});
