import type { Tokenization } from '@lore/platform/embeddings/port';
import { MAX_CHARS_PER_TOKEN } from './chunk-planner';
import { MAX_CHARS_PER_CALL, MAX_SEGMENT_CHARS, chunkText } from './text-chunker';
import type { ChunkingSettings, TextChunk, Tokenize } from './text-chunker';

/**
 * A WordPiece-like fake with the prefix property: letters and digits in pieces of up to 4
 * characters ("abcdefghij" → abcd efgh ij), every other visible character one token, whitespace
 * nothing. So "one two six." is 4 tokens and a word of 4 characters or fewer is one token.
 */
function wordPieces(text: string): Tokenization {
  const starts: number[] = [];
  const ends: number[] = [];
  for (const match of text.matchAll(/[A-Za-z0-9]+|\S/gu)) {
    const piece = match[0];
    if (/[A-Za-z0-9]/.test(piece)) {
      for (let i = 0; i < piece.length; i += 4) {
        starts.push(match.index + i);
        ends.push(match.index + Math.min(i + 4, piece.length));
      }
    } else {
      starts.push(match.index);
      ends.push(match.index + piece.length);
    }
  }
  return { count: starts.length, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}
const tokenize: Tokenize = async (texts) => texts.map(wordPieces);
const countTokens = (text: string): number => wordPieces(text).count;

/** The invariants every result must satisfy, checked with the tokenizer that made it. */
async function expectValidChunks(source: string, settings: ChunkingSettings, chunks: TextChunk[], tok: Tokenize = tokenize): Promise<void> {
  const counts = await tok(chunks.map((c) => c.text));
  const covered = new Uint8Array(source.length);
  const problems: string[] = [];
  chunks.forEach((chunk, i) => {
    const previous = chunks[i - 1];
    if (chunk.index !== i) problems.push(`#${i}: index ${chunk.index}`);
    if (source.slice(chunk.start, chunk.end) !== chunk.text) problems.push(`#${i}: offsets do not give the text`);
    if (chunk.text.length === 0 || chunk.text.trim() !== chunk.text) problems.push(`#${i}: empty or untrimmed`);
    if (chunk.tokens !== counts[i]!.count) problems.push(`#${i}: tokens ${chunk.tokens}, counted ${counts[i]!.count}`);
    if (chunk.tokens > settings.chunkSize) problems.push(`#${i}: ${chunk.tokens} tokens > ${settings.chunkSize}`);
    if (previous && (chunk.start <= previous.start || chunk.end <= previous.end)) problems.push(`#${i}: out of order`);
    covered.fill(1, chunk.start, chunk.end);
  });
  for (let i = 0; i < source.length; i++) if (covered[i] === 0 && /\S/.test(source[i]!)) problems.push(`offset ${i} is in no chunk`);
  expect(problems).toEqual([]);
}

async function chunked(source: string, settings: ChunkingSettings, tok: Tokenize = tokenize): Promise<TextChunk[]> {
  const chunks = await chunkText(source, settings, tok);
  await expectValidChunks(source, settings, chunks, tok);
  return chunks;
}

const words = (prefix: string, n: number): string => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join(' ');
/** A word that starts at `start` and ends at `end` in `source` (whitespace or the text's edge on both sides). */
const atWordEdges = (source: string, chunk: TextChunk): boolean =>
  (chunk.start === 0 || /\s/.test(source[chunk.start - 1]!)) && (chunk.end === source.length || /\s/.test(source[chunk.end]!));

describe('chunkText', () => {
  it('returns no chunks for an empty or whitespace-only text', async () => {
    expect(await chunkText('', { chunkSize: 10, chunkOverlap: 0 }, tokenize)).toEqual([]);
    expect(await chunkText(' \n\n\t  \u3000', { chunkSize: 10, chunkOverlap: 2 }, tokenize)).toEqual([]);
  });

  it('keeps a short text as one trimmed chunk with its offsets and token count', async () => {
    const source = '\n  Hello, small world!  \n';
    expect(await chunked(source, { chunkSize: 10, chunkOverlap: 3 })).toEqual([
      { text: 'Hello, small world!', index: 0, start: 3, end: 22, tokens: 8 },
    ]);
  });

  it('rejects settings it cannot honour', async () => {
    await expect(chunkText('x', { chunkSize: 0, chunkOverlap: 0 }, tokenize)).rejects.toThrow(RangeError);
    await expect(chunkText('x', { chunkSize: 4, chunkOverlap: 4 }, tokenize)).rejects.toThrow(RangeError);
    await expect(chunkText('x', { chunkSize: 4, chunkOverlap: -1 }, tokenize)).rejects.toThrow(RangeError);
  });

  it('packs whole paragraphs greedily, as many as fit', async () => {
    const paragraphs = Array.from({ length: 5 }, (_, i) => `p${i} aa bb cc dd`); // 5 tokens each
    const source = paragraphs.join('\n\n');
    const chunks = await chunked(source, { chunkSize: 12, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual([
      `${paragraphs[0]}\n\n${paragraphs[1]}`,
      `${paragraphs[2]}\n\n${paragraphs[3]}`,
      paragraphs[4],
    ]);
    expect(chunks.map((c) => c.tokens)).toEqual([10, 10, 5]);
  });

  it('prefers a line break to a sentence end', async () => {
    // One paragraph; the limit falls in its second line: the line break wins over the earlier sentence end.
    const source = 'aa bb. cc dd\nee ff gg hh ii jj kk';
    const chunks = await chunked(source, { chunkSize: 8, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(['aa bb. cc dd', 'ee ff gg hh ii jj kk']);
  });

  it('splits a paragraph longer than the limit at sentence ends, packing sentences', async () => {
    const sentences = ['Aa bb cc dd ee.', 'Ff gg hh ii jj!', 'Kk ll mm nn oo?']; // 6 tokens each
    const source = `Intro is short.\n\n${sentences.join(' ')}\n\nEnd here.`;
    const chunks = await chunked(source, { chunkSize: 13, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual([
      'Intro is short.',
      `${sentences[0]} ${sentences[1]}`,
      // The rest of the long paragraph is a unit of its own, packed with the next paragraph.
      `${sentences[2]}\n\nEnd here.`,
    ]);
    // With overlap, the chunk after the short paragraph starts inside it and still ends at a
    // sentence end after it (not at the paragraph break the previous chunk already ends at).
    const calls: string[][] = [];
    const recording: Tokenize = async (texts) => (calls.push([...texts]), tokenize(texts));
    const overlapping = await chunked(source, { chunkSize: 13, chunkOverlap: 3 }, recording);
    expect(calls[1]).toEqual(overlapping.map((c) => c.text));
    expect(overlapping.map((c) => c.text).slice(0, 2)).toEqual(['Intro is short.', `short.\n\n${sentences[0]}`]);
  });

  it('cuts after CJK sentence ends, which need no space after them', async () => {
    const source = '一二三。四五六！七八九？十';
    const chunks = await chunked(source, { chunkSize: 5, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(['一二三。', '四五六！', '七八九？十']);
  });

  it('splits a sentence longer than the limit between words', async () => {
    const source = `${words('w', 20)}.`; // 20 one-token words and a full stop
    const chunks = await chunked(source, { chunkSize: 8, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual([words('w', 8), words('w', 16).slice(words('w', 8).length + 1), 'w16 w17 w18 w19.']);
    for (const chunk of chunks) expect(atWordEdges(source, chunk)).toBe(true);
  });

  it('splits a single word longer than the limit at token ends', async () => {
    const long = 'abcdefghij'.repeat(5); // 50 characters, 13 tokens of 4 characters (the last of 2)
    const source = `start ${long} end`;
    const chunks = await chunked(source, { chunkSize: 5, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual(['start', long.slice(0, 20), long.slice(20, 40), `${long.slice(40)} end`]);
    expect(chunks.map((c) => c.tokens)).toEqual([2, 5, 5, 4]);
  });

  it('bounds a chunk\'s characters too: a long run that the tokenizer reads as one unknown token is cut by characters', async () => {
    // As WordPiece reads a word over 100 characters: one [UNK] token, however long.
    const unknownLongWords: Tokenize = async (texts) =>
      texts.map((text) => {
        const spans: Array<[number, number]> = [];
        for (const word of text.matchAll(/\S+/gu)) {
          if (word[0].length > 100) {
            spans.push([word.index, word.index + word[0].length]);
            continue;
          }
          const inner = wordPieces(word[0]);
          for (let t = 0; t < inner.count; t++) spans.push([word.index + inner.starts[t]!, word.index + inner.ends[t]!]);
        }
        return { count: spans.length, starts: Uint32Array.from(spans, (s) => s[0]), ends: Uint32Array.from(spans, (s) => s[1]) };
      });
    const hex = (n: number): string => Array.from({ length: n }, (_, i) => (i * 7919).toString(16).slice(-1)).join('');
    const source = `Digest follows. ${hex(300_000)} ${hex(300_000)} and then ordinary words.`;
    const settings = { chunkSize: 16, chunkOverlap: 0 };
    const chunks = await chunkText(source, settings, unknownLongWords);
    expect(Math.max(...chunks.map((c) => c.text.length))).toBeLessThanOrEqual(16 * MAX_CHARS_PER_TOKEN);
    expect(chunks.map((c) => c.text).join('').replace(/\s/g, '')).toBe(source.replace(/\s/g, ''));
    // Only the runs are cut by characters: the words around them stay whole (the first ones in a
    // chunk of their own, as the run would not fit beside them; the last ones beside the run's end).
    expect(chunks[0]!.text).toBe('Digest follows.');
    expect(chunks.at(-1)!.text).toMatch(/^[0-9a-f]+ and then ordinary words\.$/);
    await expectValidChunks(source, settings, chunks, unknownLongWords);
  });

  it('starts each chunk about chunkOverlap tokens before the previous end', async () => {
    const source = words('w', 30); // one token a word
    const chunks = await chunked(source, { chunkSize: 10, chunkOverlap: 3 });
    expect(chunks[0]!.text).toBe(words('w', 10));
    expect(chunks[1]!.text.startsWith('w7 w8 w9 w10 ')).toBe(true);
    for (let i = 1; i < chunks.length; i++) {
      const shared = source.slice(chunks[i]!.start, chunks[i - 1]!.end);
      expect(countTokens(shared)).toBe(3);
    }
  });

  it('moves the overlap forward to a word start, never into a word', async () => {
    const source = Array.from({ length: 20 }, (_, i) => `w${i}xxxxx`.slice(0, 8)).join(' '); // two tokens a word
    const chunks = await chunked(source, { chunkSize: 10, chunkOverlap: 3 });
    expect(chunks[0]!.text.split(' ')).toHaveLength(5);
    // Three tokens back from the end is inside the fourth word: the overlap starts at the fifth.
    expect(chunks[1]!.text.startsWith(chunks[0]!.text.split(' ')[4]!)).toBe(true);
    for (const chunk of chunks) expect(atWordEdges(source, chunk)).toBe(true);
    for (let i = 1; i < chunks.length; i++) expect(chunks[i]!.start).toBeLessThan(chunks[i - 1]!.end);
  });

  it('overlaps with what the budget leaves, keeping the boundary the chunk would end at without overlap', async () => {
    const paragraphs = Array.from({ length: 5 }, (_, i) => `p${i} aa bb cc dd`); // 5 tokens each
    const source = paragraphs.join('\n\n');
    const calls: string[][] = [];
    const recording: Tokenize = async (texts) => (calls.push([...texts]), tokenize(texts));
    const chunks = await chunked(source, { chunkSize: 12, chunkOverlap: 3 }, recording);
    // The re-count (second call) sees exactly the chunks: the plan holds no chunk inside another.
    expect(calls[1]).toEqual(chunks.map((c) => c.text));
    expect(chunks.map((c) => c.text)).toEqual([
      `${paragraphs[0]}\n\n${paragraphs[1]}`,
      `bb cc dd\n\n${paragraphs[2]}`, // p2 and p3 after "bb cc dd" would be 13 tokens: the chunk ends after p2
      `bb cc dd\n\n${paragraphs[3]}`,
      `bb cc dd\n\n${paragraphs[4]}`,
    ]);
    // With 7 tokens of budget after a 5-token paragraph, the overlap shrinks to 2 tokens.
    const tight = await chunked(source, { chunkSize: 7, chunkOverlap: 4 });
    expect(tight.map((c) => c.text).slice(0, 2)).toEqual([paragraphs[0], `cc dd\n\n${paragraphs[1]}`]);
  });

  it('adds no overlap for chunkOverlap 0', async () => {
    const source = words('w', 30);
    const chunks = await chunked(source, { chunkSize: 10, chunkOverlap: 0 });
    expect(chunks.map((c) => c.text)).toEqual([0, 10, 20].map((from) => words('w', from + 10).split(' ').slice(from).join(' ')));
  });

  it('makes progress with chunkOverlap = chunkSize - 1, without duplicates', async () => {
    const source = words('w', 200);
    const chunks = await chunked(source, { chunkSize: 5, chunkOverlap: 4 });
    expect(chunks).toHaveLength(196); // one word further each time, to the end
    expect(await chunkText(`${source}\n`, { chunkSize: 5, chunkOverlap: 4 }, tokenize)).toEqual(chunks);
    expect(new Set(chunks.map((c) => c.text)).size).toBe(chunks.length);
    expect(chunks.every((c) => c.tokens === 5)).toBe(true);
  });

  it('re-counts the chunks and splits again one that the tokenizer reads longer alone', async () => {
    // A tokenizer that spells the first word of every text letter by letter (the prefix
    // property holds; a piece of the text does not count like the same span in the whole).
    const firstWordSpelled: Tokenize = async (texts) =>
      texts.map((text) => {
        const first = /\S+/.exec(text);
        const plain = wordPieces(text);
        if (!first) return plain;
        const starts: number[] = [];
        const ends: number[] = [];
        for (let i = first.index; i < first.index + first[0].length; i++) {
          starts.push(i);
          ends.push(i + 1);
        }
        for (let t = 0; t < plain.count; t++) {
          if (plain.starts[t]! < first.index + first[0].length) continue;
          starts.push(plain.starts[t]!);
          ends.push(plain.ends[t]!);
        }
        return { count: starts.length, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
      });
    const source = Array.from({ length: 40 }, () => 'abcdefgh').join(' '); // 2 tokens a word, 8 when first
    const chunks = await chunked(source, { chunkSize: 10, chunkOverlap: 0 }, firstWordSpelled);
    expect(chunks.length).toBeGreaterThan(8);
  });

  it('cuts a stretch of tokens that cannot be placed by characters', async () => {
    // 'Ж' is two tokens whose ends repeat the previous token's end (as the local tokenizer
    // reports jamo inside Hangul syllables).
    const unplaceable: Tokenize = async (texts) =>
      texts.map((text) => {
        const plain = wordPieces(text);
        const starts: number[] = [];
        const ends: number[] = [];
        for (let t = 0; t < plain.count; t++) {
          if (text[plain.starts[t]!] === 'Ж') {
            const last = ends[ends.length - 1] ?? 0;
            starts.push(last, last);
            ends.push(last, last);
          } else {
            starts.push(plain.starts[t]!);
            ends.push(plain.ends[t]!);
          }
        }
        return { count: starts.length, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
      });
    const source = `before ${'Ж'.repeat(300)} after and more words here`;
    const chunks = await chunked(source, { chunkSize: 10, chunkOverlap: 2 }, unplaceable);
    expect(chunks.length).toBeGreaterThanOrEqual(60);
  });

  it('keeps every invariant on random texts (seeded)', async () => {
    let seed = 0x2f6b1a3;
    const random = (): number => {
      // mulberry32
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const vocabulary = ['a', 'of', 'the', 'cell', 'protein', 'antidisestablishment', 'x'.repeat(37), 'naïve', '中文', '😀', '(see', 'e.g.', '3.14'];
    const separators = [' ', ' ', ' ', ' ', '  ', '. ', '! ', '? ', ', ', '\n', '\n\n', '\n \n\t', '。', '\r\n'];
    for (let round = 0; round < 150; round++) {
      const parts: string[] = [random() < 0.3 ? '  \n' : ''];
      const n = Math.floor(random() * 300);
      for (let i = 0; i < n; i++) parts.push(pick(vocabulary), pick(separators));
      const source = parts.join('');
      const chunkSize = 2 + Math.floor(random() * 40);
      const settings = { chunkSize, chunkOverlap: random() < 0.3 ? 0 : Math.floor(random() * chunkSize) };
      const chunks = await chunkText(source, settings, tokenize);
      await expectValidChunks(source, settings, chunks);
    }
  });

  it('tokenizes a 5 MB text once in bounded segments, and re-counts its chunks once', async () => {
    const paragraph = 'The quick brown fox jumps over the lazy dog near the riverbank. Protein folding is hard! ';
    const source = Array.from({ length: 5_000_000 / paragraph.length }, (_, i) => paragraph + (i % 7 === 6 ? '\n\n' : '')).join('');
    const calls: number[][] = [];
    const counting: Tokenize = async (texts) => {
      calls.push(texts.map((t) => t.length));
      return tokenize(texts);
    };
    const started = Date.now();
    const chunks = await chunkText(source, { chunkSize: 254, chunkOverlap: 32 }, counting);
    const elapsed = Date.now() - started;
    expect(elapsed).toBeLessThan(60_000); // ~2 s here: nowhere near a per-candidate tokenizer call
    for (const call of calls) {
      expect(Math.max(...call)).toBeLessThanOrEqual(MAX_SEGMENT_CHARS);
      expect(call.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_CHARS_PER_CALL);
    }
    const tokenized = calls.flat().reduce((a, b) => a + b, 0);
    // The source once, the chunks once (each about 1/8 overlap): no other tokenizer calls.
    expect(tokenized).toBeLessThan(source.length * 2.3);
    expect(chunks.length).toBeGreaterThan(source.length / 1500);
    expect(chunks.every((c, i) => c.tokens <= 254 && c.index === i && source.slice(c.start, c.end) === c.text)).toBe(true);
  });
});
