import type { Tokenization } from '@lore/platform/embeddings/port';
import { END, TOKEN, WORD, isWhitespace, lowerBound, scanBoundaries, skipWhitespace, trimEnd, upperBound, type Boundaries } from './text-boundaries';
import type { ChunkingSettings } from './text-chunker';

/** A chunk's span in the text: trimmed, never empty. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/**
 * The most characters a chunk holds per token of `chunkSize`. WordPiece reads a word longer than
 * 100 characters as one unknown token, so a run of hex, base64 or a pasted blob counts as a
 * single token however long it is: without this bound one such run made a chunk of megabytes
 * (embedded as a few unknown tokens, and too large for a page of results). Real text has a
 * token every few characters, far inside it.
 */
export const MAX_CHARS_PER_TOKEN = 100;

interface Cut {
  /** Offset the chunk is cut at (before trimming). */
  readonly at: number;
  readonly level: number;
}

/**
 * The chunks of `text`, from its tokenization (the prefix property, see `Tokenization`): each
 * chunk takes as many tokens as fit (in at most `MAX_CHARS_PER_TOKEN` characters each), then is
 * cut at the best boundary before that limit — paragraph, line, sentence, word, and a raw token
 * end (or character) only for a word longer than the limit.
 * Each chunk after the first starts up to `chunkOverlap` tokens before the previous one's end,
 * at a word start. Counts come from the one tokenization, so they are exact when the tokenizer
 * reads a piece starting at a word like the same words in the whole text; the caller re-counts.
 * Starts and ends are strictly increasing. O(chunks × log tokens) after one pass over the text.
 */
export function planChunks(text: string, tokens: Tokenization, settings: ChunkingSettings, boundaries: Boundaries = scanBoundaries(text)): Span[] {
  const { chunkSize, chunkOverlap } = settings;
  const { count, starts, ends } = tokens;
  const length = text.length;
  const { cuts, wordStarts } = boundaries;
  const contentEnd = trimEnd(text, 0, length);

  const maxChars = chunkSize * MAX_CHARS_PER_TOKEN;
  /**
   * The furthest offset a chunk starting at `start` can reach: after its `chunkSize`-th token,
   * and within `maxChars` characters (a cut there, inside a long run, is a raw one).
   */
  const limitFrom = (start: number): number => {
    const last = lowerBound(starts, count, start) + chunkSize - 1;
    return Math.min(last >= count ? length : (ends[last] as number), start + maxChars);
  };

  /** The best cut of a chunk starting at `start` that ends after `after`, or none. */
  const cutFrom = (start: number, after: number): Cut | undefined => {
    const limit = limitFrom(start);
    if (limit >= contentEnd) return { at: length, level: END };
    for (let level = 0; level < cuts.length; level++) {
      const levelCuts = cuts[level] as Uint32Array;
      const i = upperBound(levelCuts, levelCuts.length, limit) - 1;
      if (i >= 0 && (levelCuts[i] as number) > after) return { at: levelCuts[i] as number, level };
    }
    return limit > after ? { at: limit, level: TOKEN } : undefined;
  };

  /**
   * Tokens that cannot be placed (their end repeats the one before) leave no limit past
   * `start`: cut at the next token end, and no later than the next whitespace; the caller's
   * re-count cuts that stretch by characters if it is still too long.
   */
  const fallbackCut = (start: number): Cut => {
    const next = upperBound(ends, count, start);
    let at = next < count ? (ends[next] as number) : length;
    const wordCuts = cuts[WORD];
    const w = upperBound(wordCuts, wordCuts.length, start);
    if (w < wordCuts.length) at = Math.min(at, wordCuts[w] as number);
    return { at, level: TOKEN };
  };

  /**
   * The start of the chunk after [prevStart, prevEnd) with overlap: the earliest word start at
   * most `chunkOverlap` tokens before `prevEnd` from which the chunk can still end after
   * `prevEnd` at a boundary as good as `level` (the one the chunk would end at without overlap),
   * so overlap takes what the budget leaves and never makes a chunk end at a worse boundary or
   * inside a word. A later start reaches at least as far, so that start is found by binary search.
   */
  const overlapped = (prevStart: number, prevEnd: number, level: number): { start: number; cut: Cut } | undefined => {
    const lastToken = upperBound(ends, count, prevEnd) - 1;
    if (lastToken < 0) return undefined;
    const from = Math.max(starts[Math.max(0, lastToken - chunkOverlap + 1)] as number, prevStart + 1);
    let lo = lowerBound(wordStarts, wordStarts.length, from);
    let hi = lowerBound(wordStarts, wordStarts.length, prevEnd);
    const fits = (i: number): boolean => (cutFrom(wordStarts[i] as number, prevEnd)?.level ?? TOKEN) <= level;
    if (lo >= hi || !fits(hi - 1)) return undefined;
    hi -= 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (fits(mid)) hi = mid;
      else lo = mid + 1;
    }
    const start = wordStarts[lo] as number;
    return { start, cut: cutFrom(start, prevEnd) as Cut };
  };

  /** The best level of a boundary after `after` (`END` if the rest has none). */
  const bestLevelAfter = (after: number): number => {
    for (let level = 0; level < cuts.length; level++) {
      const levelCuts = cuts[level] as Uint32Array;
      const i = upperBound(levelCuts, levelCuts.length, after);
      if (i < levelCuts.length && (levelCuts[i] as number) < contentEnd) return level;
    }
    return END;
  };

  const spans: Span[] = [];
  let start = skipWhitespace(text, 0);
  if (start >= length) return spans;
  let cut = cutFrom(start, start) ?? fallbackCut(start);
  for (;;) {
    const end = trimEnd(text, start, cut.at);
    spans.push({ start, end });
    const natural = skipWhitespace(text, cut.at);
    if (natural >= length) return spans;
    const naturalCut = cutFrom(natural, natural) ?? fallbackCut(natural);
    // The overlapped chunk must end at a boundary as good as the one without overlap; when the
    // rest fits whole, as good as the best boundary in the rest (else the last chunks would
    // shed their overlap to reach the end). A word longer than the limit gets no overlap.
    const level = naturalCut.level === END ? bestLevelAfter(end) : naturalCut.level;
    const withOverlap = chunkOverlap > 0 && level <= WORD ? overlapped(start, end, level) : undefined;
    start = withOverlap?.start ?? natural;
    cut = withOverlap?.cut ?? naturalCut;
  }
}

/**
 * `text` cut by characters into `pieces` pieces of about equal length (never inside a
 * surrogate pair), trimmed, empty ones dropped: the last resort for a stretch whose tokens
 * cannot be placed, re-counted by the caller.
 */
export function splitByCharacters(text: string, pieces: number): Span[] {
  const spans: Span[] = [];
  const width = Math.max(1, Math.ceil(text.length / pieces));
  let from = 0;
  while (from < text.length) {
    let to = Math.min(text.length, from + width);
    const code = text.charCodeAt(to - 1);
    if (to < text.length && code >= 0xd800 && code <= 0xdbff) to += 1;
    let start = from;
    while (start < to && isWhitespace(text.charCodeAt(start))) start++;
    const end = trimEnd(text, start, to);
    if (end > start) spans.push({ start, end });
    from = to;
  }
  return spans;
}
