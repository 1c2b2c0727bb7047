import { AppError } from '@lore/platform/kernel';

import { DEFAULT_EXTRACTION_LIMITS } from './extraction-limits';
import { nestingOverflowPosition } from '@lore/platform/kernel';
import { jsonText } from './json-text';

describe('jsonText', () => {
  it('writes one path: value line per leaf, in document order, with dotted keys and indexed arrays', () => {
    const json = JSON.stringify({ a: { b: [1, { c: 'x' }], d: null }, e: false });
    expect(jsonText(json, 'f.json')).toBe('a.b[0]: 1\na.b[1].c: x\na.d: null\ne: false');
  });

  it('quotes keys that are not plain words', () => {
    expect(jsonText('{"first name":"Ada","a.b":1,"":2,"été":3}', 'f.json')).toBe(
      '["first name"]: Ada\n["a.b"]: 1\n[""]: 2\nété: 3',
    );
  });

  it('writes empty containers and top-level arrays and scalars', () => {
    expect(jsonText('{"tags":[],"meta":{}}', 'f.json')).toBe('tags: []\nmeta: {}');
    expect(jsonText('["x","y"]', 'f.json')).toBe('[0]: x\n[1]: y');
    expect(jsonText('"just a string"', 'f.json')).toBe('just a string');
  });

  it('handles nesting deeper than the call stack when the limit allows it', () => {
    const depth = 20_000;
    const lines = jsonText('['.repeat(depth) + '1' + ']'.repeat(depth), 'deep.json', { ...DEFAULT_EXTRACTION_LIMITS, maxDepth: depth });
    expect(lines).toBe(`${'[0]'.repeat(depth)}: 1`);
  });

  it('refuses nesting deeper than the limit before parsing, counting brackets outside strings only', () => {
    const at = (depth: number): string => '['.repeat(depth) + '1' + ']'.repeat(depth);
    expect(jsonText(at(512), 'ok.json')).toBe(`${'[0]'.repeat(512)}: 1`);
    expect(() => jsonText(at(513), 'deep.json')).toThrow('"deep.json" nests JSON arrays and objects deeper than 512 levels (KNOWLEDGE_EXTRACT_MAX_DEPTH)');
    expect(nestingOverflowPosition('{"a":"[[[[\\"[[[", "b":[{}]}', 3)).toBe(-1);
    expect(nestingOverflowPosition('{"a":"[[[[\\"[[[", "b":[{}]}', 2)).toBeGreaterThan(0);
  });

  it('rejects invalid JSON with the parser\'s reason', () => {
    let error: unknown;
    try {
      jsonText('{"a": }', 'bad.json');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('validation');
    expect((error as AppError).message).toMatch(/^"bad.json" is not valid JSON: .*Unexpected token/);
  });
});
