import { ChunkIds } from './chunk-ids';

const batch = (from: number, count: number) => Array.from({ length: count }, (_, i) => ({ chunkId: `c${from + i}`, chunkIndex: from + i }));

describe('ChunkIds', () => {
  it('adds batches and removes chunks as new values, leaving every earlier value as it was', () => {
    const first = ChunkIds.none.with(batch(0, 3));
    const second = first.with(batch(3, 2));
    const fewer = second.without('c1');
    expect(first.size).toBe(3); // built before the later ones are looked at
    expect([fewer.size, fewer.has('c1'), fewer.get('c4')]).toEqual([4, false, 4]);
    expect([second.size, second.has('c1'), second.get('c1')]).toEqual([5, true, 1]);
    expect([first.has('c3'), first.size, ChunkIds.none.size]).toEqual([false, 3, 0]);
    // A later value built from an ancestor that was built first: both still right.
    const again = fewer.with([{ chunkId: 'c1', chunkIndex: 9 }]);
    expect([again.get('c1'), again.size, fewer.has('c1')]).toEqual([9, 5, false]);
  });

  it('folds a long chain of batches without recursion', () => {
    let ids = ChunkIds.none;
    for (let i = 0; i < 50_000; i++) ids = ids.with(batch(i, 1));
    expect([ids.size, ids.get('c49999')]).toEqual([50_000, 49_999]);
  });
});
