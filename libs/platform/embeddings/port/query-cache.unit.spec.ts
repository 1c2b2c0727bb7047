import { LruMap } from './query-cache';

describe('LruMap', () => {
  it('evicts the least recently used key beyond its capacity', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.get('a')).toBe(1); // "a" is now the most recent
    map.set('c', 3);
    expect(map.get('b')).toBeUndefined();
    expect(map.get('a')).toBe(1);
    expect(map.get('c')).toBe(3);
    expect(map.size).toBe(2);
  });

  it('peeks without refreshing, replaces in place and deletes', () => {
    const map = new LruMap<string, number>(2);
    map.set('a', 1);
    map.set('b', 2);
    expect(map.peek('a')).toBe(1);
    map.set('c', 3); // "a" was only peeked, so it goes
    expect(map.peek('a')).toBeUndefined();
    map.set('b', 20);
    expect(map.get('b')).toBe(20);
    expect(map.delete('b')).toBe(true);
    expect(map.size).toBe(1);
  });

  it('keeps nothing at capacity 0', () => {
    const map = new LruMap<string, number>(0);
    map.set('a', 1);
    expect(map.get('a')).toBeUndefined();
    expect(() => new LruMap(-1)).toThrow(RangeError);
  });
});
