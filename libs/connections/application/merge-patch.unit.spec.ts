import { mergePatch } from './merge-patch';

describe('mergePatch (RFC 7386)', () => {
  it('removes keys set to null, merges objects, replaces the rest, and leaves the target alone', () => {
    const target = { a: 1, b: { c: 2, d: 3 }, e: [1, 2], f: 'x' };
    expect(mergePatch(target, { a: null, b: { c: null, g: 4 }, e: [3], h: true })).toEqual({ b: { d: 3, g: 4 }, e: [3], f: 'x', h: true });
    expect(target).toEqual({ a: 1, b: { c: 2, d: 3 }, e: [1, 2], f: 'x' });
  });

  it('replaces a scalar with an object patch', () => {
    expect(mergePatch({ a: 'x' }, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });
});
