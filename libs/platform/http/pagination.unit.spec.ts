import { z } from 'zod';
import { commaList, cursorEnvelope, cursorPage, offsetEnvelope, offsetPage, queryBoolean, skipLimitQuery } from './pagination';

describe('offsetPage', () => {
  it('computes the first page of several', () => {
    expect(offsetPage({ items: ['a', 'b'], total: 5, skip: 0, limit: 2 })).toEqual({
      data: ['a', 'b'],
      total_count: 5,
      page: 1,
      limit: 2,
      next_page: 2,
      next_cursor: null,
      has_more: true,
    });
  });

  it('computes the last page', () => {
    expect(offsetPage({ items: ['e'], total: 5, skip: 4, limit: 2 })).toMatchObject({ page: 3, next_page: null, has_more: false });
  });

  it('numbers pages from skip even when skip is not a multiple of limit', () => {
    expect(offsetPage({ items: ['b', 'c'], total: 10, skip: 1, limit: 2 })).toMatchObject({ page: 1, next_page: 2, has_more: true });
  });

  it('handles an empty result and a skip past the end', () => {
    expect(offsetPage({ items: [], total: 0, skip: 0, limit: 100 })).toMatchObject({ page: 1, next_page: null, has_more: false, total_count: 0 });
    expect(offsetPage({ items: [], total: 3, skip: 50, limit: 10 })).toMatchObject({ page: 6, has_more: false });
  });

  it('passes a cursor through', () => {
    expect(offsetPage({ items: [1], total: 9, skip: 0, limit: 1, nextCursor: 'c1' }).next_cursor).toBe('c1');
  });

  it('produces values the envelope schema accepts', () => {
    const envelope = offsetEnvelope(z.object({ id: z.string() }));
    const page = offsetPage({ items: [{ id: 'x' }], total: 1, skip: 0, limit: 10 });
    expect(envelope.parse(page)).toEqual(page);
    // Only data and total_count are required by SPEC 2.9 for collections.
    expect(envelope.safeParse({ data: [], total_count: 0 }).success).toBe(true);
    expect(envelope.safeParse({ data: [] }).success).toBe(false);
  });
});

describe('cursor envelopes', () => {
  it('uses the given key', () => {
    const envelope = cursorEnvelope('chunks', z.object({ id: z.string() }));
    const page = cursorPage('chunks', [{ id: 'a' }], 'next');
    expect(page).toEqual({ chunks: [{ id: 'a' }], next_cursor: 'next', has_more: true });
    expect(envelope.parse(page)).toEqual(page);
    expect(cursorPage('conversations', [], null)).toEqual({ conversations: [], next_cursor: null, has_more: false });
    expect(envelope.safeParse({ items: [], next_cursor: null, has_more: false }).success).toBe(false);
  });
});

describe('skipLimitQuery', () => {
  const query = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 });

  it('applies defaults and coerces query strings', () => {
    expect(query.parse({})).toEqual({ skip: 0, limit: 100 });
    expect(query.parse({ skip: '20', limit: '5' })).toEqual({ skip: 20, limit: 5 });
  });

  it.each([{ skip: '-1' }, { limit: '0' }, { limit: '1001' }, { limit: 'ten' }, { skip: '1.5' }])('rejects %j', (input) => {
    expect(query.safeParse(input).success).toBe(false);
  });
});

describe('commaList', () => {
  it('splits, trims and drops empty entries', () => {
    expect(commaList.parse('a,b, c')).toEqual(['a', 'b', 'c']);
    expect(commaList.parse(' a ,, ,b,')).toEqual(['a', 'b']);
    expect(commaList.parse('')).toEqual([]);
  });

  it('accepts a repeated parameter', () => {
    expect(commaList.parse(['a,b', 'c'])).toEqual(['a', 'b', 'c']);
  });
});

describe('queryBoolean', () => {
  it('reads "false" as false, unlike z.coerce.boolean', () => {
    expect(queryBoolean.parse('false')).toBe(false);
    expect(queryBoolean.parse('TRUE')).toBe(true);
    expect(queryBoolean.parse('0')).toBe(false);
    expect(queryBoolean.safeParse('maybe').success).toBe(false);
  });
});
