import { fitToBudget } from './context-budget';

const items = (prefix: string, tokens: readonly number[]) => tokens.map((t, i) => ({ id: `${prefix}${i}`, tokens: t }));
const ids = (list: ReadonlyArray<{ id: string }>) => list.map((i) => i.id);

describe('fitToBudget', () => {
  it('takes everything that fits, messages oldest first', () => {
    const fitted = fitToBudget({ budget: 1_000, messages: items('m', [10, 10, 10]), memories: items('r', [5]), chunks: items('c', [20]) });
    expect([ids(fitted.messages), ids(fitted.memories), ids(fitted.chunks)]).toEqual([['m2', 'm1', 'm0'], ['r0'], ['c0']]);
  });

  it('keeps the conversation contiguous: older messages stop at the first that does not fit', () => {
    const fitted = fitToBudget({ budget: 50, messages: items('m', [10, 45, 5]), memories: [], chunks: [] });
    expect(ids(fitted.messages)).toEqual(['m0']);
  });

  it('gives each section its share before the leftovers, and skips a passage too big for what is left', () => {
    // Shares of 100: messages 50, passages 30, memories 20.
    const fitted = fitToBudget({ budget: 100, messages: items('m', [30, 30, 30]), memories: items('r', [15, 15]), chunks: items('c', [25, 40, 5]) });
    expect(ids(fitted.chunks)).toEqual(['c0', 'c2']);
    expect(ids(fitted.memories)).toEqual(['r0', 'r1']);
    expect(ids(fitted.messages)).toEqual(['m0']);
    const spent = [...fitted.messages, ...fitted.memories, ...fitted.chunks].reduce((sum, i) => sum + i.tokens, 0);
    expect(spent).toBeLessThanOrEqual(100);
  });

  it('always takes the newest message when it fits, whatever the shares', () => {
    const fitted = fitToBudget({ budget: 100, messages: items('m', [90]), memories: items('r', [5]), chunks: items('c', [5]) });
    expect([ids(fitted.messages), ids(fitted.memories), ids(fitted.chunks)]).toEqual([['m0'], ['r0'], ['c0']]);
  });

  it('never exceeds the budget', () => {
    for (let seed = 1; seed < 200; seed++) {
      const tokens = (n: number) => Array.from({ length: n }, (_, i) => ((seed * 31 + i * 17) % 60) + 1);
      const budget = (seed * 13) % 300;
      const fitted = fitToBudget({ budget, messages: items('m', tokens(8)), memories: items('r', tokens(5)), chunks: items('c', tokens(5)) });
      const spent = [...fitted.messages, ...fitted.memories, ...fitted.chunks].reduce((sum, i) => sum + i.tokens, 0);
      expect(spent).toBeLessThanOrEqual(budget);
    }
  });
});
