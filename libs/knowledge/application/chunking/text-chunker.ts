import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Tokenization } from '@lore/platform/embeddings/port';
import { planChunks, splitByCharacters } from './chunk-planner';
import type { Span } from './chunk-planner';
import { isWhitespace, scanBoundariesInTurns } from './text-boundaries';

/** A tokenizer with the prefix property of `Tokenization`, e.g. `EmbeddingProvider.tokenize`. */
export type Tokenize = (texts: readonly string[]) => Promise<Tokenization[]>;

export interface ChunkingSettings {
  /** The most tokens of a chunk, as `tokenize` counts them (e.g. `info.maxInputTokens`). */
  readonly chunkSize: number;
  /** About how many tokens each chunk repeats from the previous one; `< chunkSize`, 0 for none. */
  readonly chunkOverlap: number;
}

export interface TextChunk {
  /** The chunk, trimmed of surrounding whitespace; never empty. */
  readonly text: string;
  /** 0-based position among the chunks. */
  readonly index: number;
  /** UTF-16 offsets in the source: `source.slice(start, end) === text`. */
  readonly start: number;
  readonly end: number;
  /** The chunk's tokens, as `tokenize` counts the chunk alone: at most `chunkSize`. */
  readonly tokens: number;
}

/** The longest text handed to `tokenize` when the source is tokenized in segments. */
export const MAX_SEGMENT_CHARS = 65_536;
/** The most characters handed to one `tokenize` call (one message to a tokenizer worker). */
export const MAX_CHARS_PER_CALL = 262_144;

/**
 * Splits `source` into chunks of at most `chunkSize` tokens, recursively at the best boundary
 * (blank line, line break, sentence end, whitespace, and a raw token end only inside a word
 * longer than the limit), greedily packed, each chunk after the first overlapping the previous
 * one by about `chunkOverlap` tokens from a word start.
 *
 * The source is tokenized once (in segments of at most `MAX_SEGMENT_CHARS` cut at whitespace)
 * and cuts are found by binary search over the token offsets. Then the chunks are re-counted
 * with batched `tokenize` calls, and a chunk over the limit (a tokenizer that reads a piece
 * differently from the whole, or tokens that cannot be placed) is split again from its own
 * tokens — by characters when that makes no progress — until every chunk fits. Chunks are
 * bounded in characters too (`MAX_CHARS_PER_TOKEN`, by the planner). Only a single character
 * that alone counts more than `chunkSize` tokens can stay over the limit.
 */
export async function chunkText(source: string, settings: ChunkingSettings, tokenize: Tokenize): Promise<TextChunk[]> {
  const { chunkSize, chunkOverlap } = settings;
  if (!Number.isInteger(chunkSize) || chunkSize < 1) throw new RangeError(`chunkSize must be a positive integer, not ${chunkSize}`);
  if (!Number.isInteger(chunkOverlap) || chunkOverlap < 0 || chunkOverlap >= chunkSize) {
    throw new RangeError(`chunkOverlap must be an integer from 0 to chunkSize - 1 (${chunkSize - 1}), not ${chunkOverlap}`);
  }
  if (!/\S/.test(source)) return [];

  const accepted: { span: Span; tokens: number }[] = [];
  const boundaries = await scanBoundariesInTurns(source);
  let pending = planChunks(source, await tokenizeSource(source, tokenize), settings, boundaries);
  while (pending.length > 0) {
    const texts = pending.map((span) => source.slice(span.start, span.end));
    const counted = await tokenizeInBatches(texts, tokenize);
    const again: Span[] = [];
    pending.forEach((span, i) => {
      const tokens = counted[i] as Tokenization;
      const text = texts[i] as string;
      if (tokens.count <= chunkSize || isSingleCharacter(text)) {
        accepted.push({ span, tokens: tokens.count });
        return;
      }
      let pieces = planChunks(text, tokens, settings);
      if (pieces.length === 1) pieces = splitByCharacters(text, Math.max(2, Math.ceil((tokens.count * 1.1) / chunkSize)));
      for (const piece of pieces) again.push({ start: span.start + piece.start, end: span.start + piece.end });
    });
    pending = again;
  }

  // Pieces of a re-split chunk sit among their neighbours: order by start, and drop any chunk
  // that another one contains (its text is embedded anyway).
  accepted.sort((a, b) => a.span.start - b.span.start || b.span.end - a.span.end);
  const chunks: TextChunk[] = [];
  let reached = -1;
  for (const { span, tokens } of accepted) {
    if (span.end <= reached) continue;
    reached = span.end;
    chunks.push({ text: source.slice(span.start, span.end), index: chunks.length, start: span.start, end: span.end, tokens });
  }
  // Only a source with such a run has a chunk to cut (the regex scan of every chunk costs ~0.1 s a 19 MB text).
  return boundaries.longestGap >= LONG_GAP_CHARS ? splitAtLongGaps(source, chunks, tokenize) : chunks;
}

/** A run of whitespace this long ends a chunk: tokens are few there, but characters many. */
const LONG_GAP_CHARS = 256;

/**
 * Cuts chunks at long runs of whitespace (layout padding, blank pages of an extract): the
 * token limit never sees them, so a chunk could otherwise hold megabytes of spaces. Each
 * piece holds a subset of its chunk's tokens, so it stays within the limit; pieces are
 * counted again in one batched call.
 */
async function splitAtLongGaps(source: string, chunks: TextChunk[], tokenize: Tokenize): Promise<TextChunk[]> {
  const gap = new RegExp(`\\s{${LONG_GAP_CHARS},}`, 'g');
  const hasGap = new RegExp(`\\s{${LONG_GAP_CHARS}}`); // not global: `test` keeps no position
  if (!chunks.some((c) => c.text.length > LONG_GAP_CHARS && hasGap.test(c.text))) return chunks;
  const spans: Span[] = [];
  for (const chunk of chunks) {
    let from = 0;
    for (const match of chunk.text.matchAll(gap)) {
      spans.push({ start: chunk.start + from, end: chunk.start + match.index });
      from = match.index + match[0].length;
    }
    spans.push({ start: chunk.start + from, end: chunk.end });
  }
  const kept = spans.map((span) => trimmed(source, span)).filter((span) => span.end > span.start);
  const texts = kept.map((span) => source.slice(span.start, span.end));
  const counted = await tokenizeInBatches(texts, tokenize);
  return kept.map((span, index) => ({ text: texts[index] as string, index, start: span.start, end: span.end, tokens: (counted[index] as Tokenization).count }));
}

function trimmed(source: string, span: Span): Span {
  let { start, end } = span;
  while (start < end && isWhitespace(source.charCodeAt(start))) start++;
  while (end > start && isWhitespace(source.charCodeAt(end - 1))) end--;
  return { start, end };
}

/** The source's tokens, from segments of at most `MAX_SEGMENT_CHARS` cut at whitespace. */
async function tokenizeSource(source: string, tokenize: Tokenize): Promise<Tokenization> {
  const bounds: number[] = [0];
  for (let from = 0; from < source.length; from = bounds[bounds.length - 1] as number) {
    bounds.push(segmentEnd(source, from));
  }
  const segments = bounds.slice(1).map((end, i) => source.slice(bounds[i], end));
  const results = await tokenizeInBatches(segments, tokenize);
  if (results.length === 1) return results[0] as Tokenization;
  const count = results.reduce((sum, r) => sum + r.count, 0);
  const starts = new Uint32Array(count);
  const ends = new Uint32Array(count);
  let k = 0;
  results.forEach((r, i) => {
    const shift = bounds[i] as number;
    for (let t = 0; t < r.count; t++, k++) {
      starts[k] = (r.starts[t] as number) + shift;
      ends[k] = (r.ends[t] as number) + shift;
    }
  });
  return { count, starts, ends };
}

/**
 * Where the segment starting at `from` ends: at the last whitespace character within
 * `MAX_SEGMENT_CHARS` (tokens never span whitespace, so any whitespace is a safe cut), else
 * after that many characters. Never at the start of a whitespace run: inside a long run of
 * whitespace that would make one-character segments (a 2.5 MB text of spaces took minutes).
 */
function segmentEnd(source: string, from: number): number {
  const limit = from + MAX_SEGMENT_CHARS;
  if (limit >= source.length) return source.length;
  let at = limit;
  while (at > from && !isWhitespace(source.charCodeAt(at))) at--;
  if (at > from) return at;
  const code = source.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit + 1 : limit;
}

/**
 * `tokenize` over `texts` in calls of at most `MAX_CHARS_PER_CALL` characters (at least one text
 * each), with a turn of the event loop between calls: a tokenizer on this thread (an
 * OpenAI-compatible provider's estimate, ~20 ms a call) answers at once, and a 19 MB text's 72
 * calls held the event loop every workspace's requests share for 1.5 s.
 */
async function tokenizeInBatches(texts: readonly string[], tokenize: Tokenize): Promise<Tokenization[]> {
  const results: Tokenization[] = [];
  let from = 0;
  while (from < texts.length) {
    if (from > 0) await nextTurn();
    let to = from + 1;
    let chars = (texts[from] as string).length;
    while (to < texts.length && chars + (texts[to] as string).length <= MAX_CHARS_PER_CALL) chars += (texts[to++] as string).length;
    const batch = texts.slice(from, to);
    const tokens = await tokenize(batch);
    if (tokens.length !== batch.length) throw new Error(`tokenize returned ${tokens.length} results for ${batch.length} texts`);
    for (const t of tokens) results.push(t); // not push(...tokens): a huge batch would overflow the stack
    from = to;
  }
  return results;
}

function isSingleCharacter(text: string): boolean {
  return text.length === 1 || (text.length === 2 && text.codePointAt(0) !== text.charCodeAt(0));
}
