import { cutOffset } from './embeddings.port';
import type { Tokenization } from './embeddings.port';

describe('cutOffset', () => {
  // "one two three": three tokens
  const tokens: Tokenization = { count: 3, starts: Uint32Array.from([0, 4, 8]), ends: Uint32Array.from([3, 7, 13]) };
  const text = 'one two three';

  it('cuts after the last token that fits', () => {
    expect(cutOffset(tokens, text, 1)).toBe(3);
    expect(cutOffset(tokens, text, 2)).toBe(7);
  });

  it('keeps a text that fits whole, trailing characters included', () => {
    expect(cutOffset(tokens, `${text}  `, 3)).toBe(15);
    expect(cutOffset(tokens, text, 10)).toBe(13);
  });

  it('keeps nothing for a budget of 0', () => {
    expect(cutOffset(tokens, text, 0)).toBe(0);
  });
});
