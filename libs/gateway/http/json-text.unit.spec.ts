import { nestingOverflowPosition } from '@lore/platform/kernel';
import { decodeJsonText, firstInvalidUtf8Offset, jsonSyntaxErrorPosition } from './json-text';

const nested = (levels: number, inner = '1'): string => '{"a":'.repeat(levels) + inner + '}'.repeat(levels);

describe('nestingOverflowPosition', () => {
  it('accepts nesting up to the limit, the body itself being level 1', () => {
    expect(nestingOverflowPosition(nested(64), 64)).toBe(-1);
    expect(nestingOverflowPosition('['.repeat(64) + ']'.repeat(64), 64)).toBe(-1);
    expect(nestingOverflowPosition('{"a":[{"b":[1,2,{"c":{}}]}],"d":"x"}', 6)).toBe(-1);
  });

  it('names the position of the first bracket beyond the limit', () => {
    // Level 65 opens at index 64 * '{"a":'.length.
    expect(nestingOverflowPosition(nested(65), 64)).toBe(64 * 5);
    expect(nestingOverflowPosition('['.repeat(65) + ']'.repeat(65), 64)).toBe(64);
    expect(nestingOverflowPosition('{"a":[{"b":[1,2,{"c":{}}]}]}', 4)).toBe(16);
  });

  it('finds the 8 KB, 4,100-level metadata that used to overflow the stack', () => {
    const body = `{"memory":"m","metadata":${nested(4_100)}}`;
    expect(nestingOverflowPosition(body, 64)).toBeGreaterThan(0);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = `{"s":"${'['.repeat(200)}\\"${'{'.repeat(200)}"}`;
    expect(nestingOverflowPosition(text, 2)).toBe(-1);
    expect(nestingOverflowPosition(`["\\\\", ${'['.repeat(3)}]]]]`, 2)).toBe(8);
  });

  it('counts siblings at one level, not as deeper levels', () => {
    const wide = `[${Array.from({ length: 500 }, () => '{"a":[1]}').join(',')}]`;
    expect(nestingOverflowPosition(wide, 3)).toBe(-1);
  });
});

describe('decodeJsonText', () => {
  it('decodes valid UTF-8, multi-byte characters included', () => {
    expect(decodeJsonText(Buffer.from('{"m":"héllo ☕ 𝄞"}'))).toEqual({ ok: true, text: '{"m":"héllo ☕ 𝄞"}' });
  });

  it('refuses invalid UTF-8 instead of replacing it, at the character position of the bad byte', () => {
    expect(decodeJsonText(Buffer.concat([Buffer.from('{"m":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]))).toEqual({ ok: false, position: 6 });
    // Position counts characters: "é" is two bytes but one character.
    expect(decodeJsonText(Buffer.concat([Buffer.from('{"é":"'), Buffer.from([0xc3]), Buffer.from('"}')]))).toEqual({ ok: false, position: 6 });
  });
});

describe('firstInvalidUtf8Offset', () => {
  it.each([
    ['ASCII', [0x61, 0x62], -1],
    ['two-byte', [0xc3, 0xa9], -1],
    ['three-byte', [0xe2, 0x98, 0x95], -1],
    ['four-byte', [0xf0, 0x9d, 0x84, 0x9e], -1],
    ['lone continuation byte', [0x61, 0x80], 1],
    ['overlong two-byte', [0xc0, 0xaf], 0],
    ['overlong three-byte', [0xe0, 0x80, 0xaf], 0],
    ['UTF-16 surrogate', [0x61, 0xed, 0xa0, 0x80], 1],
    ['above U+10FFFF', [0xf4, 0x90, 0x80, 0x80], 0],
    ['truncated sequence at the end', [0x61, 0x62, 0xe2, 0x98], 2],
    ['invalid lead byte', [0xff], 0],
  ])('%s', (_what, bytes, offset) => {
    const array = Uint8Array.from(bytes);
    expect(firstInvalidUtf8Offset(array)).toBe(offset);
    // Agrees with the platform's strict decoder on validity.
    let valid = true;
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(array);
    } catch {
      valid = false;
    }
    expect(valid).toBe(offset === -1);
  });
});

describe('jsonSyntaxErrorPosition', () => {
  it('reports where JSON.parse stopped, and the end for truncated input', () => {
    expect(jsonSyntaxErrorPosition('{"a":1,}')).toBe(7);
    expect(jsonSyntaxErrorPosition('{"memory": "x",')).toBe(15);
  });
});
