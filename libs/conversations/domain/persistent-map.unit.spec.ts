import { PersistentMap } from './persistent-map';

describe('PersistentMap', () => {
  it('keeps every version answering as it did', () => {
    const v0 = PersistentMap.empty<string, number>();
    const v1 = v0.set('a', 1);
    const v2 = v1.set('a', 2).set('b', 3);
    expect([v0.get('a'), v1.get('a'), v2.get('a'), v1.get('b'), v2.get('b')]).toEqual([undefined, 1, 2, undefined, 3]);
  });

  it('forks an older version without changing the newer one', () => {
    const base = PersistentMap.empty<string, number>().set('a', 1);
    const newer = base.set('a', 2);
    const fork = base.set('a', 10).set('c', 4);
    expect([base.get('a'), newer.get('a'), fork.get('a'), fork.get('c'), newer.get('c')]).toEqual([1, 2, 10, 4, undefined]);
    // The newer line still grows in O(1) after the fork.
    expect(newer.set('d', 5).get('d')).toBe(5);
    expect(fork.get('d')).toBeUndefined();
  });

  it('builds long histories in linear time', () => {
    let map = PersistentMap.empty<number, number>();
    const started = performance.now();
    for (let i = 0; i < 100_000; i++) map = map.set(i, i);
    expect(map.get(99_999)).toBe(99_999);
    // Quadratic copying would take minutes here; a generous bound that only catches that.
    expect(performance.now() - started).toBeLessThan(5_000);
  });
});
