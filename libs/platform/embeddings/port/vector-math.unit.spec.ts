import { batches, cosineSimilarity, dot, l2Norm, l2Normalize, lengthOrder } from './vector-math';

describe('vector math', () => {
  it('normalises to unit length in place', () => {
    const v = new Float32Array([3, 4]);
    expect(l2Normalize(v)).toBe(v);
    expect(Array.from(v)).toEqual([expect.closeTo(0.6, 6), expect.closeTo(0.8, 6)]);
    expect(l2Norm(v)).toBeCloseTo(1, 6);
  });

  it('leaves a zero vector zero instead of dividing by zero', () => {
    expect(Array.from(l2Normalize(new Float32Array(3)))).toEqual([0, 0, 0]);
  });

  it('computes dot products and cosine similarity of unnormalised vectors', () => {
    expect(dot([1, 2, 3], [4, 5, 6])).toBe(32);
    expect(cosineSimilarity([2, 0], [5, 0])).toBeCloseTo(1, 9);
    expect(cosineSimilarity([1, 0], [0, 3])).toBeCloseTo(0, 9);
    expect(cosineSimilarity([1, 1], [-1, -1])).toBeCloseTo(-1, 9);
    expect(cosineSimilarity([0, 0], [1, 0])).toBe(0);
    expect(() => dot([1], [1, 2])).toThrow(RangeError);
  });

  it('splits into batches of at most the size, in order', () => {
    expect(batches([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(batches([], 3)).toEqual([]);
    expect(() => batches([1], 0)).toThrow(RangeError);
  });

  it('orders indices by text length, stably', () => {
    expect(lengthOrder(['ccc', 'a', 'bb', 'd', ''])).toEqual([4, 1, 3, 2, 0]);
  });
});
