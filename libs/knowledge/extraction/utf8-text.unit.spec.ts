import { normaliseNewlines, tidyBlocks } from './utf8-text';

describe('normaliseNewlines', () => {
  it('turns CRLF and lone CR into LF', () => {
    expect(normaliseNewlines('a\r\nb\rc\nd')).toBe('a\nb\nc\nd');
  });
});

describe('tidyBlocks', () => {
  it('collapses spaces, tabs and no-break spaces within a line and trims each line', () => {
    expect(tidyBlocks('  one \t two\u00a0\u00a0three  \n four ')).toBe('one two three\nfour');
  });

  it('keeps at most one blank line between blocks and none at the ends', () => {
    expect(tidyBlocks('\n\nfirst\n\n\n\n  \nsecond\n\n')).toBe('first\n\nsecond');
  });
});
