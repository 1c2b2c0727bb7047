import { jsonCopy } from './json-copy';

/** What the in-process transport gave receivers before: the reference jsonCopy must equal. */
function roundTrip(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/** Equal values, prototypes included (deepStrictEqual), and, like JSON, in the same key order. */
function expectSameAsRoundTrip(value: unknown): void {
  const copy = jsonCopy(value);
  const reference = roundTrip(value);
  expect(copy).toStrictEqual(reference);
  expect(JSON.stringify(copy)).toBe(JSON.stringify(reference));
  if (copy !== null && typeof copy === 'object') {
    expect(Object.getPrototypeOf(copy)).toBe(Object.getPrototypeOf(reference));
    expect(copy).not.toBe(value);
  }
}

class Point {
  constructor(
    readonly x: number,
    readonly y: number,
  ) {}
}

describe('jsonCopy', () => {
  it.each([
    ['a create request', { workspaceId: 'w', userId: 'u', actor: 'user:u', memory: 'tea', memoryType: 'user', topics: ['drinks'], metadata: { source: 'bench', i: 1, nested: { a: [1, 2, { b: null }] } } }],
    ['scalars', ['x', '', true, false, null, 0, 1.5, -2, 1e21, 5e-324, Number.MAX_SAFE_INTEGER + 2]],
    ['-0, NaN and infinities', { zero: -0, list: [-0, Number.NaN, Infinity, -Infinity], nan: Number.NaN, inf: Infinity }],
    ['undefined, symbols and holes', { gone: undefined, sym: Symbol('s'), list: [undefined, Symbol('t'), , 1] }],
    ['lone surrogates and escapes', { text: 'a\ud800b\udc00"\\\n\u2028', 'k\ud800"': 1 }],
    ['integer-like keys (ordered like JSON.parse orders them)', { b: 1, 10: 'ten', a: 2, 2: 'two', '-1': 'minus' }],
    ['a null-prototype object', Object.assign(Object.create(null) as object, { a: 1, inner: Object.assign(Object.create(null) as object, { b: [2] }) })],
    ['a Date inside', { at: new Date(Date.UTC(2026, 10, 27, 9, 30)), list: [new Date(0)] }],
    ['a class instance inside', { point: new Point(1, 2) }],
    ['a toJSON object inside', { custom: { toJSON: () => ({ replaced: true }) } }],
    ['a __proto__ key (JSON.parse makes it an own member)', JSON.parse('{"a":1,"__proto__":{"polluted":true}}') as unknown],
    ['a Map and a Set inside', { map: new Map([['a', 1]]), set: new Set([1]) }],
    ['a Buffer inside', { bytes: Buffer.from('hi') }],
    ['boxed primitives inside', { s: new String('s'), n: new Number(3), b: new Boolean(false) }],
    ['a function member', { fn: () => 1, keep: 1 }],
    ['a function in an array', [() => 1, 2]],
    ['a non-callable toJSON member', { toJSON: 'not a function', a: 1 }],
    ['an array with extra properties', Object.assign([1, 2], { extra: 'dropped' })],
    ['deep nesting past the plain depth', deep(150)],
  ])('copies %s as the JSON round trip does', (_name, value) => {
    expectSameAsRoundTrip(value);
  });

  it.each([
    ['undefined', undefined],
    ['a symbol', Symbol('s')],
    ['a function', () => 1],
    ['NaN', Number.NaN],
    ['-0', -0],
    ['a string', 'text'],
    ['a Date', new Date(0)],
  ])('copies a top-level %s as the JSON round trip does', (_name, value) => {
    expect(jsonCopy(value)).toStrictEqual(roundTrip(value));
  });

  it('fails on a bigint and on a cycle with the errors JSON.stringify throws', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic['self'] = { back: cyclic };
    for (const value of [{ big: 10n }, cyclic, [cyclic]]) {
      expect(() => jsonCopy(value)).toThrow(captured(() => JSON.stringify(value)));
    }
  });

  it('shares nothing with the value it copies', () => {
    const value = { list: [{ a: 1 }], inner: { b: 2 } };
    const copy = jsonCopy(value) as typeof value;
    copy.list[0]!.a = 9;
    copy.inner.b = 9;
    expect(value).toEqual({ list: [{ a: 1 }], inner: { b: 2 } });
  });

  it('copies plain data without serializing it', () => {
    const stringify = jest.spyOn(JSON, 'stringify');
    const parse = jest.spyOn(JSON, 'parse');
    try {
      jsonCopy({ memory: 'tea', topics: ['a'], metadata: { i: 1, nested: [null, true] } });
      expect(stringify).not.toHaveBeenCalled();
      expect(parse).not.toHaveBeenCalled();
    } finally {
      stringify.mockRestore();
      parse.mockRestore();
    }
  });
});

function deep(levels: number): unknown {
  let value: unknown = 'bottom';
  for (let i = 0; i < levels; i++) value = i % 2 === 0 ? { v: value } : [value];
  return value;
}

function captured(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a failure');
}
