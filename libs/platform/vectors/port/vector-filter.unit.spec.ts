import { AppError, compileFilter, parseDatetime, type VectorFilter } from '@lore/platform/kernel';
import { FILTER_CASES, FILTER_POINTS, INVALID_FILTERS } from '@lore/platform/vectors/contract';
import { matchesFilter } from './filter-evaluator';

describe('compileFilter and the reference evaluator', () => {
  it.each(FILTER_CASES)('%s', (_title, filter, expected) => {
    const compiled = compileFilter(filter);
    const matched = FILTER_POINTS.filter(([, payload]) => matchesFilter(compiled, payload)).map(([id]) => id);
    expect(matched.sort()).toEqual([...expected].sort());
  });

  it.each(INVALID_FILTERS)('refuses %s with a validation error naming the place', (_title, filter) => {
    let error: unknown;
    try {
      compileFilter(filter as VectorFilter);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: 'validation', issues: [{ loc: expect.arrayContaining(['filters']) as unknown, type: 'value_error' }] });
  });

  it('rewrites null equality into existence and folds constants to the root', () => {
    expect(compileFilter({ source: null })).toEqual({ kind: 'not', node: { kind: 'exists', path: { root: 'source', key: 'source' } } });
    expect(compileFilter({ source: { $ne: null } })).toEqual({ kind: 'exists', path: { root: 'source', key: 'source' } });
    expect(compileFilter({ $or: [] })).toEqual({ kind: 'none' });
    expect(compileFilter({ content_id: 'a', $or: [{ $and: [] }] })).toEqual({ kind: 'match', path: { root: 'content_id', key: 'content_id' }, values: ['a'] });
    expect(compileFilter({ $not: { 'metadata.x': { $in: [] } } })).toEqual({ kind: 'all' });
    expect(compileFilter(undefined)).toEqual({ kind: 'all' });
  });

  it('flattens nested conjunctions and keeps metadata paths as segments', () => {
    const compiled = compileFilter({ $and: [{ 'metadata.a.b': 1 }, { $and: [{ tags: 'x' }, { chunk_index: { $gte: 2, $lt: 5 } }] }] });
    expect(compiled).toEqual({
      kind: 'and',
      nodes: [
        { kind: 'match', path: { root: 'metadata', key: 'metadata.a.b', segments: ['a', 'b'] }, values: [1] },
        { kind: 'match', path: { root: 'tags', key: 'tags' }, values: ['x'] },
        { kind: 'range', path: { root: 'chunk_index', key: 'chunk_index' }, type: 'number', bounds: { gte: 2, lt: 5 } },
      ],
    });
  });

  it('bounds the size of a filter', () => {
    const many = Array.from({ length: 2000 }, (_, i) => i);
    expect(() => compileFilter({ chunk_index: { $in: many } })).toThrow(AppError);
    expect(() => compileFilter({ 'metadata.a.b.c.d.e.f.g.h.i': 1 })).toThrow(AppError);
  });
});

describe('parseDatetime', () => {
  it.each([
    ['2024-05-01', Date.UTC(2024, 4, 1)],
    ['2024-05-01T12:30', Date.UTC(2024, 4, 1, 12, 30)],
    ['2024-05-01T12:30:15Z', Date.UTC(2024, 4, 1, 12, 30, 15)],
    ['2024-05-01 12:30:15.250', Date.UTC(2024, 4, 1, 12, 30, 15, 250)],
    ['2024-05-01T12:30:15.123456789+02:00', Date.UTC(2024, 4, 1, 10, 30, 15, 123)],
    ['2024-05-01T00:00:00-0130', Date.UTC(2024, 4, 1, 1, 30)],
    ['2024-02-29T00:00:00z', Date.UTC(2024, 1, 29)],
  ])('reads %s', (text, expected) => {
    expect(parseDatetime(text)).toBe(expected);
  });

  it.each(['2023-02-29', '2024-13-01', '2024-05-01T24:00', 'yesterday', '2024', '2024-5-1', '2024-05-01T12:30:15+25:00', ' 2024-05-01'])('refuses %s', (text) => {
    expect(parseDatetime(text)).toBeNull();
  });
});
