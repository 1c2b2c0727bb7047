import { scopedFilter } from './qdrant-filter.translator';
import { compileFilter, type VectorFilter } from '@lore/platform/kernel';

const scope = { key: 'collection_id', match: { any: ['col-1'] } };
const translate = (filter: VectorFilter): unknown => scopedFilter(['col-1'], compileFilter(filter));

/** What the adapter sends (its contract suite runs against a server where QDRANT_URL is set). */
describe('Qdrant filter translation', () => {
  it.each<[string, VectorFilter, unknown]>([
    ['no filter: the scope alone', {}, { must: [scope] }],
    ['string equality', { content_id: 'c1' }, { must: [scope, { key: 'content_id', match: { value: 'c1' } }] }],
    ['$in per type', { 'metadata.x': { $in: ['a', 'b', 1, 2, 2.5, true] } }, {
      must: [scope, { should: [
        { key: 'metadata.x', match: { any: ['a', 'b'] } },
        { key: 'metadata.x', match: { any: [1, 2] } },
        { key: 'metadata.x', range: { gte: 2.5, lte: 2.5 } },
        { key: 'metadata.x', match: { value: true } },
      ] }],
    }],
    ['$ne', { source: { $ne: 'a' } }, { must: [scope, { must_not: [{ key: 'source', match: { value: 'a' } }] }] }],
    ['null equality', { source: null }, { must: [scope, { must_not: [{ must_not: [{ is_empty: { key: 'source' } }] }] }] }],
    ['$exists', { tags: { $exists: true } }, { must: [scope, { must_not: [{ is_empty: { key: 'tags' } }] }] }],
    ['a numeric range', { chunk_index: { $gte: 2, $lt: 5 } }, { must: [scope, { key: 'chunk_index', range: { gte: 2, lt: 5 } }] }],
    ['a datetime range', { 'metadata.at': { $gt: '2024-01-01T01:00:00+01:00' } }, { must: [scope, { key: 'metadata.at', range: { gt: '2024-01-01T00:00:00.000Z' } }] }],
    ['$containsAll', { tags: { $containsAll: ['a', 'b'] } }, { must: [scope, { must: [{ key: 'tags', match: { value: 'a' } }, { key: 'tags', match: { value: 'b' } }] }] }],
    ['nested $or / $not', { $or: [{ content_id: 'c1' }, { $not: { tags: 'x' } }] }, {
      must: [scope, { should: [{ key: 'content_id', match: { value: 'c1' } }, { must_not: [{ key: 'tags', match: { value: 'x' } }] }] }],
    }],
  ])('%s', (_title, filter, expected) => {
    expect(translate(filter)).toEqual(expected);
  });

  it('a filter that matches nothing sends no request', () => {
    expect(translate({ $or: [] })).toBeNull();
  });

  it('scopes to every collection asked for', () => {
    expect(scopedFilter(['a', 'b'], compileFilter({}))).toEqual({ must: [{ key: 'collection_id', match: { any: ['a', 'b'] } }] });
  });
});
