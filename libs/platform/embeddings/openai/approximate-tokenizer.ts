import type { Tokenization } from '@lore/platform/embeddings/port';

/**
 * A token estimate for servers whose tokenizer Lore does not have (OpenAI's BPE, or whatever
 * an Ollama/vLLM/TEI model uses). It is meant to over-count, so that truncation and chunk
 * limits computed from it stay under the server's real limit:
 *
 * - a run of ASCII letters: one token per `charsPerToken` letters (default 3; OpenAI's
 *   cl100k/o200k average about 4 characters per token on English, WordPiece about 4.5);
 * - a run of digits: one token per 3 digits (cl100k splits numbers exactly so);
 * - any other visible character: one token each; characters from U+3000 up (CJK, kana,
 *   Hangul, emoji and the rest of the astral planes) two each, since BPE often spends two or
 *   three byte-level tokens on a rare one;
 * - whitespace: a single space or newline is free (BPE merges it into the next word); a longer
 *   run costs one token per 4 characters.
 *
 * Tokens never span whitespace, and a prefix cut at a token end holds exactly the tokens
 * before it, so the prefix property of `Tokenization` holds by construction. For a character
 * that counts as two tokens, the first of the two ends where the character starts.
 */
export function approximateTokenize(text: string, charsPerToken = 3): Tokenization {
  const starts: number[] = [];
  const ends: number[] = [];
  const push = (start: number, end: number): void => {
    starts.push(start);
    ends.push(end);
  };
  const pieces = /[A-Za-z]+|[0-9]+|\s+|[^\sA-Za-z0-9]/gu;
  for (const match of text.matchAll(pieces)) {
    const piece = match[0];
    const at = match.index;
    const first = piece.charCodeAt(0);
    if (isLetter(first) || isDigit(first)) {
      const size = isDigit(first) ? 3 : charsPerToken;
      for (let i = 0; i < piece.length; i += size) push(at + i, at + Math.min(i + size, piece.length));
    } else if (/\s/u.test(piece)) {
      if (piece.length > 1) {
        for (let i = 0; i < piece.length; i += 4) push(at + i, at + Math.min(i + 4, piece.length));
      }
    } else {
      if ((piece.codePointAt(0) as number) >= 0x3000) push(at, at);
      push(at, at + piece.length);
    }
  }
  return { count: starts.length, starts: Uint32Array.from(starts), ends: Uint32Array.from(ends) };
}

/** The text cut after its first `maxTokens` estimated tokens (unchanged when it has no more). */
export function truncateApproximately(text: string, maxTokens: number, charsPerToken = 3): string {
  const tokens = approximateTokenize(text, charsPerToken);
  if (tokens.count <= maxTokens) return text;
  return text.slice(0, maxTokens <= 0 ? 0 : tokens.ends[maxTokens - 1]);
}

const isLetter = (c: number): boolean => (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
const isDigit = (c: number): boolean => c >= 48 && c <= 57;
