import { AppError, type FusionOptions } from '@lore/platform/kernel';
import type { LegCandidate, LegCompletion } from './fusion';
import { completes, completionNeeded, DEFAULT_FUSION, distribution, fuse, minMax } from './fusion';

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

/** What an adapter completes for these legs: d's vector score, b's BM25 (b matches the text weakly). */
const completion: LegCompletion = { vector: new Map([['d', 0.2]]), keyword: new Map([['b', 1.5]]) };
const noCompletion: LegCompletion = { vector: new Map(), keyword: new Map() };

describe('fusion', () => {
  it('the default is weighted_score with weight 0.7', () => {
    expect(DEFAULT_FUSION).toEqual({ method: 'weighted_score', weight: 0.7 });
    expect(completes(DEFAULT_FUSION)).toBe(true);
    expect(completes({ method: 'rrf' })).toBe(false);
  });

  it('weighted score: w · vector + (1 − w) · keyword / top keyword over completed candidates (hand-computed)', () => {
    const fused = fuse(vector, keyword, { method: 'weighted_score', weight: 0.75 }, 10, completion);
    // Top keyword score 12. a: .75·.9 + .25·3/12; b: .75·.8 + .25·1.5/12 (completed BM25);
    // c: .75·.5 + .25·12/12; d: .75·.2 (completed cosine) + .25·6/12.
    expect(fused.map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
    const expected = new Map([
      ['a', 0.7375],
      ['b', 0.63125],
      ['c', 0.625],
      ['d', 0.275],
    ]);
    for (const f of fused) expect(f.score).toBeCloseTo(expected.get(f.id) ?? NaN, 12);
    // Listed legs keep their rank; completed ones carry the completed score and no rank.
    expect(fused.find((f) => f.id === 'b')).toMatchObject({ vector: { score: 0.8, rank: 2 }, keyword: { score: 1.5, rank: null } });
    expect(fused.find((f) => f.id === 'd')).toMatchObject({ vector: { score: 0.2, rank: null }, keyword: { score: 6, rank: 2 } });
    expect(fused.find((f) => f.id === 'a')).toMatchObject({ vector: { score: 0.9, rank: 1 }, keyword: { score: 3, rank: 3 } });
  });

  it('weighted score: the weight moves the balance (w .5: c .75, a .575, b .4625, d .35)', () => {
    const fused = fuse(vector, keyword, { method: 'weighted_score', weight: 0.5 }, 10, completion);
    expect(fused.map((f) => [f.id, f.score])).toEqual([
      ['c', expect.closeTo(0.75, 12)],
      ['a', expect.closeTo(0.575, 12)],
      ['b', expect.closeTo(0.4625, 12)],
      ['d', expect.closeTo(0.35, 12)],
    ]);
    expect(fuse(vector, keyword, { method: 'weighted_score', weight: 1 }, 10, completion).map((f) => f.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(fuse(vector, keyword, { method: 'weighted_score', weight: 0 }, 10, completion).map((f) => f.id)).toEqual(['c', 'd', 'a', 'b']);
  });

  it('weighted score: completion changes the order (b scores only .6 with BM25 0, below c)', () => {
    const withoutBm25 = fuse(vector, keyword, { method: 'weighted_score', weight: 0.75 }, 10, { vector: completion.vector, keyword: new Map() });
    expect(withoutBm25.map((f) => f.id)).toEqual(['a', 'c', 'b', 'd']);
    expect(withoutBm25.find((f) => f.id === 'b')).toMatchObject({ score: expect.closeTo(0.6, 12) as number, keyword: { score: 0, rank: null } });
  });

  it('weighted score: a keyword-only candidate without a vector score (deleted meanwhile) is left out', () => {
    expect(fuse(vector, keyword, { method: 'weighted_score', weight: 0.75 }, 10, { vector: new Map(), keyword: completion.keyword }).map((f) => f.id)).toEqual(['a', 'b', 'c']);
  });

  it('weighted score: no keyword match (top keyword score 0) is the vector leg’s order and scores', () => {
    const fused = fuse(vector, [], { method: 'weighted_score', weight: 0.75 }, 10, noCompletion);
    expect(fused.map((f) => [f.id, f.score])).toEqual([
      ['a', expect.closeTo(0.675, 12)],
      ['b', expect.closeTo(0.6, 12)],
      ['c', expect.closeTo(0.375, 12)],
    ]);
    for (const f of fused) expect(f.keyword).toEqual({ score: 0, rank: null });
  });

  it('weighted score: the vector leg’s own score is used raw (euclidean: minus the distance)', () => {
    const fused = fuse(
      [
        { id: 'x', score: -0.5 },
        { id: 'y', score: -1 },
      ],
      [{ id: 'y', score: 4 }],
      { method: 'weighted_score', weight: 0.75 },
      10,
      noCompletion,
    );
    // x: .75 · −.5 + 0 = −.375; y: .75 · −1 + .25 · 4/4 = −.5.
    expect(fused.map((f) => [f.id, f.score])).toEqual([
      ['x', expect.closeTo(-0.375, 12)],
      ['y', expect.closeTo(-0.5, 12)],
    ]);
  });

  it('weighted score: refuses to fuse without the adapter’s completion; says what to complete', () => {
    expect(() => fuse(vector, keyword, DEFAULT_FUSION, 5)).toThrow(/completion/);
    expect(completionNeeded(vector, keyword, DEFAULT_FUSION)).toEqual({ vector: ['d'], keyword: ['b'] });
    expect(completionNeeded(vector, keyword, { method: 'rrf' })).toEqual({ vector: [], keyword: [] });
    expect(completionNeeded(vector, [], DEFAULT_FUSION)).toEqual({ vector: [], keyword: ['a', 'b', 'c'] });
  });

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
    expect(fuse(vector, [], DEFAULT_FUSION, 2, noCompletion).map((f) => f.id)).toEqual(['a', 'b']);
    expect(fuse(vector, [], { method: 'rrf' }, 2).map((f) => f.id)).toEqual(['a', 'b']);
    expect(fuse([], [], DEFAULT_FUSION, 5, noCompletion)).toEqual([]);
    expect(fuse(vector, keyword, DEFAULT_FUSION, 0, completion)).toEqual([]);
    expect(fuse(vector, keyword, { method: 'relative_score' }, 0)).toEqual([]);
  });

  it.each<FusionOptions>([
    { method: 'rrf', k: -1 },
    { method: 'rrf', k: Number.POSITIVE_INFINITY },
    { method: 'rrf', weights: { vector: -1, keyword: 1 } },
    { method: 'dbsf', weights: { vector: 0, keyword: 0 } },
    { method: 'relative_score', alpha: -0.1 },
    { method: 'relative_score', alpha: Number.NaN },
    { method: 'weighted_score', weight: -0.1 },
    { method: 'weighted_score', weight: 1.1 },
    { method: 'weighted_score', weight: Number.NaN },
    { method: 'weighted_score', weight: '0.5' } as unknown as FusionOptions,
    { method: 'nope' } as unknown as FusionOptions,
  ])('refuses %j', (fusion) => {
    expect(() => fuse(vector, keyword, fusion, 5, completion)).toThrow(AppError);
  });
});
