import { textParts } from './text-parts';

describe('textParts', () => {
  it('cuts a text into pieces of at most the size, which join back into it', () => {
    const text = 'abcdefghij'.repeat(25);
    const parts = textParts(text, 64);
    expect(parts.map((p) => p.length)).toEqual([64, 64, 64, 58]);
    expect(parts.join('')).toBe(text);
  });

  it('never cuts a surrogate pair in two', () => {
    const text = `${'a'.repeat(63)}😀${'b'.repeat(10)}`; // the emoji's two halves straddle offset 64
    const parts = textParts(text, 64);
    expect(parts[0]).toBe('a'.repeat(63));
    expect(parts[1]?.startsWith('😀')).toBe(true);
    expect(parts.join('')).toBe(text);
  });

  it('gives one part for a short text and none for an empty one', () => {
    expect(textParts('short', 64)).toEqual(['short']);
    expect(textParts('', 64)).toEqual([]);
  });
});
