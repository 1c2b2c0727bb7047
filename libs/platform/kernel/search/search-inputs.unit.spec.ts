import { FusionOptionsInput, VectorFilterInput } from './search-inputs';

describe('VectorFilterInput', () => {
  it('parses a filter of the grammar to itself', () => {
    const filter = { $or: [{ 'metadata.kind': 'cat' }, { chunk_index: { $gte: 2 } }], tags: { $in: ['a'] } };
    expect(VectorFilterInput.parse(filter)).toEqual(filter);
  });

  it("refuses what the grammar's compiler refuses, at the place it names below the field, in its words", () => {
    const result = VectorFilterInput.safeParse({ $and: [{ 'metadata.ok': 1 }, { 'metadata.x': { $regex: 'a' } }] });
    expect(result.success).toBe(false);
    expect(result.error?.issues).toEqual([expect.objectContaining({ code: 'custom', path: ['$and', 1, 'metadata.x', '$regex'], message: 'unknown operator $regex' })]);
  });

  it('refuses what is not an object before the grammar looks at it', () => {
    expect(VectorFilterInput.safeParse([1]).success).toBe(false);
  });
});

describe('FusionOptionsInput', () => {
  it('takes each method with its bounds', () => {
    expect(FusionOptionsInput.parse({ method: 'rrf', k: 10, weights: { vector: 1, keyword: 2 } })).toEqual({ method: 'rrf', k: 10, weights: { vector: 1, keyword: 2 } });
    expect(FusionOptionsInput.safeParse({ method: 'weighted_score', weight: 2 }).success).toBe(false);
    expect(FusionOptionsInput.safeParse({ method: 'nope' }).success).toBe(false);
  });
});
