import { AppError } from '@lore/platform/kernel';
import type { FusionOptions, LegCandidate } from './fusion';
import { DEFAULT_FUSION, distribution, fuse, minMax } from './fusion';

const vector: LegCandidate[] = [
  { id: 'a', score: 0.9 },
  { id: 'b', score: 0.8 },
  { id: 'c', score: 0.5 },
];
const keyword: LegCandidate[] = [
  { id: 'c', score: 12 },
  { id: 'd', score: 6 },
  { id: 'a', score: 3 },
];

describe('fusion', () => {
  it('RRF: Σ weight / (k + rank), legs and ranks carried along', () => {
    const fused = fuse(vector, keyword, { method: 'rrf', k: 60 }, 10);
    expect(fused).toEqual([
      { id: 'a', score: 1 / 61 + 1 / 63, vector: { score: 0.9, rank: 1 }, keyword: { score: 3, rank: 3 } },
      { id: 'c', score: 1 / 63 + 1 / 61, vector: { score: 0.5, rank: 3 }, keyword: { score: 12, rank: 1 } },
      { id: 'b', score: 1 / 62, vector: { score: 0.8, rank: 2 }, keyword: null },
      { id: 'd', score: 1 / 62, vector: null, keyword: { score: 6, rank: 2 } },
    ]);
  });

  it('RRF weights and k change the order', () => {
    expect(fuse(vector, keyword, { method: 'rrf', k: 1, weights: { vector: 1, keyword: 3 } }, 3).map((f) => f.id)).toEqual(['c', 'a', 'd']);
    expect(fuse(vector, keyword, { method: 'rrf', weights: { vector: 1, keyword: 0 } }, 3).map((f) => f.id)).toEqual(['a', 'b', 'c']);
  });

  it('relative score: alpha · minmax(vector) + (1 − alpha) · minmax(keyword)', () => {
    const fused = fuse(vector, keyword, { method: 'relative_score', alpha: 0.3 }, 10);
    const v = (s: number): number => (s - 0.5) / 0.4;
    const k = (s: number): number => (s - 3) / 9;
    const expected = new Map([
      ['a', 0.3 * v(0.9) + 0.7 * k(3)],
      ['b', 0.3 * v(0.8)],
      ['c', 0.3 * v(0.5) + 0.7 * k(12)],
      ['d', 0.7 * k(6)],
    ]);
    expect(fused.map((f) => f.id)).toEqual(['c', 'a', 'd', 'b']);
    for (const f of fused) expect(f.score).toBeCloseTo(expected.get(f.id) ?? NaN, 12);
    expect(fuse(vector, keyword, { method: 'relative_score', alpha: 1 }, 3).map((f) => f.id)).toEqual(['a', 'b', 'c']);
  });

  it('min-max of a leg whose scores are all equal is 1', () => {
    expect(minMax([{ score: 2, rank: 1 }, { score: 2, rank: 2 }])(2)).toBe(1);
  });

  it('DBSF: (s − (μ − 3σ)) / 6σ, clamped, summed', () => {
    const leg = vector.map((c, i) => ({ score: c.score, rank: i + 1 }));
    const mean = (0.9 + 0.8 + 0.5) / 3;
    const sigma = Math.sqrt(((0.9 - mean) ** 2 + (0.8 - mean) ** 2 + (0.5 - mean) ** 2) / 3);
    expect(distribution(leg)(0.9)).toBeCloseTo((0.9 - (mean - 3 * sigma)) / (6 * sigma), 12);
    expect(distribution(leg)(100)).toBe(1);
    expect(distribution([{ score: 1, rank: 1 }])(1)).toBe(0.5);
    const fused = fuse(vector, keyword, { method: 'dbsf' }, 10);
    expect(fused[0]?.id).toBe('c');
  });

  it('breaks ties by the best leg rank, then by id', () => {
    const fused = fuse([{ id: 'y', score: 1 }], [{ id: 'x', score: 1 }], { method: 'rrf' }, 10);
    expect(fused.map((f) => f.id)).toEqual(['x', 'y']);
    const ranks = fuse(
      [
        { id: 'p', score: 1 },
        { id: 'q', score: 0.5 },
      ],
      [
        { id: 'q', score: 1 },
        { id: 'p', score: 0.5 },
      ],
      { method: 'rrf' },
      10,
    );
    expect(ranks.map((f) => f.id)).toEqual(['p', 'q']);
  });

  it('truncates to the limit and handles empty legs', () => {
    expect(fuse(vector, [], DEFAULT_FUSION, 2).map((f) => f.id)).toEqual(['a', 'b']);
    expect(fuse([], [], DEFAULT_FUSION, 5)).toEqual([]);
    expect(fuse(vector, keyword, { method: 'relative_score' }, 0)).toEqual([]);
  });

  it.each<FusionOptions>([
    { method: 'rrf', k: -1 },
    { method: 'rrf', k: Number.POSITIVE_INFINITY },
    { method: 'rrf', weights: { vector: -1, keyword: 1 } },
    { method: 'dbsf', weights: { vector: 0, keyword: 0 } },
    { method: 'relative_score', alpha: -0.1 },
    { method: 'relative_score', alpha: Number.NaN },
    { method: 'nope' } as unknown as FusionOptions,
  ])('refuses %j', (fusion) => {
    expect(() => fuse(vector, keyword, fusion, 5)).toThrow(AppError);
  });
});
