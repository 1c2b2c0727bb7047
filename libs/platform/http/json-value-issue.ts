import type { ValidationIssue } from '@lore/platform/kernel';

/** A UTF-16 surrogate without its partner: no Unicode character, and no UTF-8 encoding. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const MAX_SAFE_DIGITS = String(Number.MAX_SAFE_INTEGER);

/**
 * The first value of a JSON text (already parsed into `value`, its nesting already bounded:
 * MAX_JSON_DEPTH) that Lore could not keep as it was sent, located under `loc`:
 * - an integer literal beyond ±(2^53 − 1): JSON.parse rounds it (9007199254740993 arrives as
 *   …992), so the stored value would differ from the one sent;
 * - a number beyond the double range (1e400 arrives as Infinity, which JSON writes back as null),
 *   or so close to zero that it rounds to it (1e-400 arrives as 0);
 * - a string or key holding a lone surrogate (`"\ud800"`): no Unicode character, it would turn
 *   into U+FFFD or fail to encode downstream.
 * Refused rather than silently changed. Numbers written with a fraction or an exponent within
 * the double range (1.5e300, 0.1) are floats, kept as JSON floats are everywhere.
 */
export function unkeepableJsonIssue(text: string, value: unknown, loc: ReadonlyArray<string | number>): ValidationIssue | null {
  const number = unkeepableNumber(text);
  if (number !== null) {
    const sentinel = `\u0000unkeepable-${Math.random().toString(36).slice(2)}`;
    const marked: unknown = JSON.parse(`${text.slice(0, number.start)}${JSON.stringify(sentinel)}${text.slice(number.end)}`);
    const at = [...loc, ...(pathOf(marked, sentinel) ?? [])];
    return number.integer
      ? { loc: at, msg: 'Integer out of range: integers must be within ±9007199254740991 (2^53 - 1); send larger ones as strings', type: 'int_precision' }
      : { loc: at, msg: 'Number out of range: JSON numbers must be finite doubles, and not so small that they round to zero', type: 'finite_number' };
  }
  return loneSurrogateIssue(value, loc);
}

/** The first number token (outside strings) of a valid JSON text that parsing would change. */
export function unkeepableNumber(text: string): { start: number; end: number; integer: boolean } | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, escapes included.
      for (i++; i < text.length && text.charCodeAt(i) !== 0x22; i++) if (text.charCodeAt(i) === 0x5c) i++;
      continue;
    }
    if (c !== 0x2d && (c < 0x30 || c > 0x39)) continue;
    // Scanned by character code, sliced only when it may be out of range: this runs over every JSON body.
    let end = i + 1;
    let integer = true;
    for (; end < text.length; end++) {
      const d = text.charCodeAt(end);
      if (d >= 0x30 && d <= 0x39) continue;
      if (d !== 0x2e && d !== 0x65 && d !== 0x45 && d !== 0x2b && d !== 0x2d) break;
      integer = false;
    }
    const first = c === 0x2d ? i + 1 : i;
    if (integer) {
      const length = end - first;
      if (length > MAX_SAFE_DIGITS.length || (length === MAX_SAFE_DIGITS.length && text.slice(first, end) > MAX_SAFE_DIGITS)) return { start: i, end, integer: true };
    } else {
      const parsed = Number(text.slice(i, end));
      if (!Number.isFinite(parsed) || (parsed === 0 && nonZeroMantissa(text, first, end))) return { start: i, end, integer: false };
    }
    i = end - 1;
  }
  return null;
}

/** Whether the digits before the exponent of the number at [start, end) are not all zero: such a number parsed as 0 underflowed. */
function nonZeroMantissa(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x65 || c === 0x45) return false;
    if (c >= 0x31 && c <= 0x39) return true;
  }
  return false;
}

function pathOf(value: unknown, sentinel: string): Array<string | number> | null {
  if (value === sentinel) return [];
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const path = pathOf(value[i], sentinel);
      if (path !== null) return [i, ...path];
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const path = pathOf(item, sentinel);
      if (path !== null) return [key, ...path];
    }
  }
  return null;
}

/** The first string or key holding a lone surrogate, or null. Recursive: nesting bounded by the caller. */
export function loneSurrogateIssue(value: unknown, loc: ReadonlyArray<string | number>): ValidationIssue | null {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? loneSurrogate(loc) : null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const issue = loneSurrogateIssue(value[i], [...loc, i]);
      if (issue !== null) return issue;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return loneSurrogate([...loc, key]);
      const issue = loneSurrogateIssue(item, [...loc, key]);
      if (issue !== null) return issue;
    }
  }
  return null;
}

/** Whether a text holds a UTF-16 surrogate without its partner (no Unicode character). */
export function hasLoneSurrogate(text: string): boolean {
  return LONE_SURROGATE.test(text);
}

function loneSurrogate(loc: ReadonlyArray<string | number>): ValidationIssue {
  return { loc: [...loc], msg: 'Input should be a valid string: unpaired surrogate (not a Unicode character)', type: 'string_unicode' };
}
