import { scanBoundaries, scanBoundariesInTurns } from './text-boundaries';
import { countTurns } from '@lore/platform/testing';

describe('scanning a text for boundaries', () => {
  const sentence = 'A line of words ends here. Another one? 「引用。」 Next\n';
  const text = `${sentence.repeat(20_000)}\n\n${' '.repeat(300)}tail 終わり。続く`;

  it('finds the same boundaries a slice at a time, letting the event loop turn in between', async () => {
    const turns = countTurns();
    const inTurns = await scanBoundariesInTurns(text);
    expect(turns()).toBeGreaterThanOrEqual(3); // ~1.1 M characters: a turn per 256 Ki at least
    const whole = scanBoundaries(text);
    // Byte comparisons: an element-wise toEqual of arrays this long takes seconds.
    const bytes = (array: Uint32Array): Buffer => Buffer.from(array.buffer, array.byteOffset, array.byteLength);
    for (const [i, cuts] of inTurns.cuts.entries()) expect(bytes(cuts).equals(bytes(whole.cuts[i] as Uint32Array))).toBe(true);
    expect(bytes(inTurns.wordStarts).equals(bytes(whole.wordStarts))).toBe(true);
    expect([inTurns.longestGap, inTurns.cuts[3].length]).toEqual([whole.longestGap, whole.cuts[3].length]);
  });

  it('measures the longest whitespace run', () => {
    expect(scanBoundaries(text).longestGap).toBe(303); // the last line's end, the blank line and the padding after it
    expect(scanBoundaries('no  gap').longestGap).toBe(2);
    expect(scanBoundaries('word').longestGap).toBe(0);
  });
});
