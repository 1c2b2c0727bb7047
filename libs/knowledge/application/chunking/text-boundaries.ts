import { setImmediate as nextTurn } from 'node:timers/promises';
/**
 * Where a text may be cut, by quality (best first): a blank line, a line break, a sentence end,
 * any other whitespace. Found in one pass over the text; all offsets are UTF-16 and sorted, so
 * the splitter finds the best cut before a token limit by binary search.
 */

/** The end of the text: better than any boundary (the rest fits in one chunk). */
export const END = -1;
export const PARAGRAPH = 0;
export const LINE = 1;
export const SENTENCE = 2;
export const WORD = 3;
/** Not a boundary of the text: a raw token end, for a single word longer than the limit. */
export const TOKEN = 4;

export interface Boundaries {
  /**
   * `cuts[level]`: the offsets where a chunk may end at that level or a better one. A cut is the
   * start of a whitespace run (the chunk ends before it), or the offset right after a CJK
   * sentence end (`。！？`) that no whitespace follows.
   */
  readonly cuts: readonly [Uint32Array, Uint32Array, Uint32Array, Uint32Array];
  /** Offsets where a word starts: after a whitespace run, or after a CJK sentence end. */
  readonly wordStarts: Uint32Array;
  /** The length of the text's longest whitespace run. */
  readonly longestGap: number;
}

/** The characters of JavaScript's `\s` (and of `String.prototype.trim`). */
export function isWhitespace(code: number): boolean {
  if (code <= 32) return code === 32 || (code >= 9 && code <= 13);
  if (code < 160) return false;
  return (
    code === 160 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** First offset at or after `from` that is not whitespace (`text.length` if none). */
export function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && isWhitespace(text.charCodeAt(i))) i++;
  return i;
}

/** `end` moved back over trailing whitespace, not before `start`. */
export function trimEnd(text: string, start: number, end: number): number {
  let j = end;
  while (j > start && isWhitespace(text.charCodeAt(j - 1))) j--;
  return j;
}

const isSentenceEnd = (code: number): boolean =>
  code === 46 /* . */ || code === 33 /* ! */ || code === 63 /* ? */ || isCjkSentenceEnd(code);
const isCjkSentenceEnd = (code: number): boolean => code === 0x3002 /* 。 */ || code === 0xff01 /* ！ */ || code === 0xff1f; /* ？ */
/** Closing quotes and brackets that may follow a sentence end: `."`, `?)`, `。」`. */
const isCloser = (code: number): boolean =>
  code === 34 || code === 39 || code === 41 || code === 93 || code === 125 || code === 0xbb ||
  code === 0x2019 || code === 0x201d || code === 0x300d || code === 0x300f || code === 0xff09;

/** Whether the text before `at` ends a sentence (a sentence end, maybe followed by closers). */
function endsSentence(text: string, at: number): boolean {
  let k = at - 1;
  for (let closers = 0; k >= 0 && closers < 3 && isCloser(text.charCodeAt(k)); closers++) k--;
  return k >= 0 && isSentenceEnd(text.charCodeAt(k));
}

export function scanBoundaries(text: string): Boundaries {
  const scan = scanning(text);
  for (;;) {
    const step = scan.next();
    if (step.done === true) return step.value;
  }
}

/**
 * `scanBoundaries` a slice at a time, with a turn of the event loop between slices: a text of
 * megabytes (a 19 MB upload: ~0.5 s of scanning) otherwise held every other request back.
 */
export async function scanBoundariesInTurns(text: string): Promise<Boundaries> {
  const scan = scanning(text);
  for (;;) {
    const step = scan.next();
    if (step.done === true) return step.value;
    await nextTurn();
  }
}

/** Characters, or boundaries, handled between two pauses of `scanning` (a few ms). */
const SCAN_SLICE = 1 << 18;

/** The scan behind both: pauses (yields) after every SCAN_SLICE characters or boundaries. */
function* scanning(text: string): Generator<void, Boundaries> {
  const n = text.length;
  const positions: number[] = [];
  const levels: number[] = [];
  const wordStarts: number[] = [];
  let longestGap = 0;
  let i = 0;
  let pauseAt = SCAN_SLICE;
  while (i < n) {
    if (i >= pauseAt) {
      yield;
      pauseAt = i + SCAN_SLICE;
    }
    const code = text.charCodeAt(i);
    if (isWhitespace(code)) {
      let j = i;
      let newlines = 0;
      for (; j < n; j++) {
        const c = text.charCodeAt(j);
        if (!isWhitespace(c)) break;
        if (c === 10 || (c === 13 && text.charCodeAt(j + 1) !== 10) || c === 0x2028 || c === 0x2029) newlines++;
      }
      if (j - i > longestGap) longestGap = j - i;
      if (i > 0) {
        positions.push(i);
        levels.push(newlines >= 2 ? PARAGRAPH : newlines === 1 ? LINE : endsSentence(text, i) ? SENTENCE : WORD);
      }
      if (j < n) wordStarts.push(j);
      i = j;
    } else if (isCjkSentenceEnd(code)) {
      let j = i + 1;
      while (j < n && (isCjkSentenceEnd(text.charCodeAt(j)) || isCloser(text.charCodeAt(j)))) j++;
      // Followed by whitespace, the whitespace run is the cut (a sentence end, found above).
      if (j < n && !isWhitespace(text.charCodeAt(j))) {
        positions.push(j);
        levels.push(SENTENCE);
        wordStarts.push(j);
      }
      i = j;
    } else {
      i++;
    }
  }
  // Each level's cuts: those at it or a better one, in one pass.
  const sizes = [0, 0, 0, 0];
  for (const level of levels) for (let l = level; l <= WORD; l++) (sizes[l] as number)++;
  const cuts = [new Uint32Array(sizes[0] as number), new Uint32Array(sizes[1] as number), new Uint32Array(sizes[2] as number), new Uint32Array(sizes[3] as number)] as const;
  const filled = [0, 0, 0, 0];
  for (let p = 0; p < positions.length; p++) {
    if (p > 0 && p % SCAN_SLICE === 0) yield;
    for (let l = levels[p] as number; l <= WORD; l++) (cuts[l] as Uint32Array)[(filled[l] as number)++] = positions[p] as number;
  }
  return { cuts, wordStarts: Uint32Array.from(wordStarts), longestGap };
}

/** First index `i` in `0..size` with `array[i] >= value` (`size` if none). */
export function lowerBound(array: ArrayLike<number>, size: number, value: number): number {
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((array[mid] as number) < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index `i` in `0..size` with `array[i] > value` (`size` if none). */
export function upperBound(array: ArrayLike<number>, size: number, value: number): number {
  let lo = 0;
  let hi = size;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((array[mid] as number) <= value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
