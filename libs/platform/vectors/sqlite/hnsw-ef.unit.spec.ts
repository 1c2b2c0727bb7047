import { EF_BASE_POINTS, efFor } from './hnsw-graph';

describe('efFor: the candidate list grows with the graph past EF_BASE_POINTS', () => {
  it('uses efSearch as configured up to EF_BASE_POINTS points', () => {
    expect(efFor(64, 5_000)).toBe(64);
    expect(efFor(64, EF_BASE_POINTS)).toBe(64);
  });

  it('grows with the square root of the size beyond it (ef 64 lost recall at 1M: .907; ef 200 kept .968)', () => {
    expect(efFor(64, 400_000)).toBe(128);
    expect(efFor(64, 1_000_000)).toBeGreaterThanOrEqual(200);
    const sizes = [150_000, 300_000, 600_000, 1_000_000, 4_000_000];
    const efs = sizes.map((n) => efFor(64, n));
    expect(efs).toEqual([...efs].sort((a, b) => a - b));
  });
});
