import { approximateTokenize, truncateApproximately } from './approximate-tokenizer';

const spans = (text: string): string[] => {
  const t = approximateTokenize(text);
  return Array.from({ length: t.count }, (_, i) => text.slice(t.starts[i], t.ends[i]));
};

describe('approximateTokenize', () => {
  it('counts letters in threes, digits in threes, punctuation one each, a single space free', () => {
    expect(spans('Hello, world! 1234567')).toEqual(['Hel', 'lo', ',', 'wor', 'ld', '!', '123', '456', '7']);
  });

  it('counts longer whitespace runs one token per four characters', () => {
    expect(approximateTokenize('a\n\nb').count).toBe(3);
    expect(approximateTokenize('a         b').count).toBe(5);
  });

  it('counts CJK, Hangul and emoji as two tokens each and other scripts as one per character', () => {
    expect(approximateTokenize('中文').count).toBe(4);
    expect(approximateTokenize('😀').count).toBe(2);
    expect(approximateTokenize('привет').count).toBe(6);
    expect(approximateTokenize('é').count).toBe(1);
  });

  it('over-counts English compared with ~4 characters per token', () => {
    const text = 'The quick brown fox jumps over the lazy dog while the farmer watches from the porch.';
    expect(approximateTokenize(text).count).toBeGreaterThan(text.length / 4);
  });

  it('honours the prefix property: the text up to a token end has at most that many tokens', () => {
    const text = 'Résumé: 12345 items,  中文 😀 text\n\n\nend';
    const t = approximateTokenize(text);
    for (let k = 1; k <= t.count; k++) expect(approximateTokenize(text.slice(0, t.ends[k - 1])).count).toBeLessThanOrEqual(k);
  });

  it('uses the given characters per token', () => {
    expect(approximateTokenize('abcdefgh', 4).count).toBe(2);
  });
});

describe('truncateApproximately', () => {
  it('keeps a short text and cuts a long one after its first maxTokens tokens', () => {
    expect(truncateApproximately('one two', 10)).toBe('one two');
    expect(truncateApproximately('one two three four', 2)).toBe('one two');
    expect(truncateApproximately('abcdef', 1)).toBe('abc');
    expect(truncateApproximately('abc', 0)).toBe('');
  });
});
