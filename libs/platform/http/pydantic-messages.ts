import type { z } from 'zod';
import type { ValueLookup } from './zod-introspection';

/**
 * Wording and `type` codes follow pydantic v2 / FastAPI so that clients written against
 * the original service keep matching on them. Only the per-issue translation lives
 * here; walking nested issues and building `loc` is in validation-errors.ts.
 */
export interface MsgAndType {
  readonly msg: string;
  readonly type: string;
}

export const MISSING: MsgAndType = { msg: 'Field required', type: 'missing' };
export const EXTRA_FORBIDDEN: MsgAndType = { msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
/** FastAPI's wording for any body it cannot read as JSON (syntax, encoding). */
export const JSON_INVALID: MsgAndType = { msg: 'JSON decode error', type: 'json_invalid' };

/** A body nested deeper than the gateway accepts: still `json_invalid`, saying why. */
export function jsonTooDeepMessage(maxDepth: number): MsgAndType {
  return { msg: `JSON decode error: nested deeper than ${maxDepth} levels`, type: JSON_INVALID.type };
}

const plural = (n: number | bigint, word: string): string => `${word}${Number(n) === 1 ? '' : 's'}`;

/** Python's repr of a literal, as pydantic prints expected values. */
export function pyRepr(value: unknown): string {
  if (typeof value === 'string') return `'${value}'`;
  if (value === null || value === undefined) return 'None';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- expected values are literals (numbers, bigints)
  return String(value);
}

/** "'a'", "'a' or 'b'", "'a', 'b' or 'c'". */
export function pyAlternatives(values: readonly unknown[]): string {
  const reprs = values.map(pyRepr);
  const last = reprs.pop();
  if (last === undefined) return '';
  return reprs.length === 0 ? last : `${reprs.join(', ')} or ${last}`;
}

export function invalidTypeMessage(
  issue: z.core.$ZodIssueInvalidType,
  found: ValueLookup,
  expectsInteger: boolean,
): MsgAndType {
  // Absent keys are reported by zod as "expected X, received undefined"; pydantic calls that "missing".
  if (issue.expected === 'nonoptional' || (!found.present && issue.expected !== 'never')) return MISSING;
  const raw = found.value;
  const fromString = typeof raw === 'string';
  switch (issue.expected) {
    case 'string':
      return { msg: 'Input should be a valid string', type: 'string_type' };
    case 'number':
      if (typeof raw === 'number' && !Number.isFinite(raw)) {
        return { msg: 'Input should be a finite number', type: 'finite_number' };
      }
      return expectsInteger ? integerMessage(raw) : floatMessage(fromString);
    case 'int':
    case 'bigint':
      return integerMessage(raw);
    case 'boolean':
      return fromString
        ? { msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' }
        : { msg: 'Input should be a valid boolean', type: 'bool_type' };
    case 'array':
      return { msg: 'Input should be a valid list', type: 'list_type' };
    case 'tuple':
      return { msg: 'Input should be a valid tuple', type: 'tuple_type' };
    case 'set':
      return { msg: 'Input should be a valid set', type: 'set_type' };
    case 'object':
      return { msg: 'Input should be a valid dictionary or object to extract fields from', type: 'model_attributes_type' };
    case 'record':
    case 'map':
      return { msg: 'Input should be a valid dictionary', type: 'dict_type' };
    case 'date':
      return { msg: 'Input should be a valid datetime', type: 'datetime_type' };
    case 'null':
      return { msg: 'Input should be None', type: 'none_required' };
    case 'never':
      // `z.never()` fields are how a schema forbids one specific key.
      return EXTRA_FORBIDDEN;
    default:
      return { msg: issue.message, type: `${issue.expected}_type` };
  }
}

/** pydantic's refusal of a string that is no decimal integer. */
export const INT_PARSING = { msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' } as const;

function integerMessage(raw: unknown): MsgAndType {
  if (typeof raw === 'string') return INT_PARSING;
  if (typeof raw === 'number' && Number.isFinite(raw) && !Number.isInteger(raw)) {
    return { msg: 'Input should be a valid integer, got a number with a fractional part', type: 'int_from_float' };
  }
  return { msg: 'Input should be a valid integer', type: 'int_type' };
}

function floatMessage(fromString: boolean): MsgAndType {
  return fromString
    ? { msg: 'Input should be a valid number, unable to parse string as a number', type: 'float_parsing' }
    : { msg: 'Input should be a valid number', type: 'float_type' };
}

function bound(value: number | bigint, origin: string): string {
  // zod carries date bounds as epoch milliseconds.
  return origin === 'date' ? new Date(Number(value)).toISOString() : String(value);
}

function actualLength(found: ValueLookup): string {
  const raw = found.value;
  if (Array.isArray(raw)) return `, not ${raw.length}`;
  if (raw instanceof Set || raw instanceof Map) return `, not ${raw.size}`;
  return '';
}

export function tooSmallMessage(issue: z.core.$ZodIssueTooSmall, found: ValueLookup): MsgAndType {
  const n = issue.minimum;
  switch (issue.origin) {
    case 'string':
      return { msg: `String should have at least ${n} ${plural(n, 'character')}`, type: 'string_too_short' };
    case 'array':
    case 'set': {
      const kind = issue.origin === 'set' ? 'Set' : 'List';
      const msg = `${kind} should have at least ${n} ${plural(n, 'item')} after validation${actualLength(found)}`;
      return { msg, type: 'too_short' };
    }
    case 'number':
    case 'int':
    case 'bigint':
    case 'date':
      return issue.inclusive === false
        ? { msg: `Input should be greater than ${bound(n, issue.origin)}`, type: 'greater_than' }
        : { msg: `Input should be greater than or equal to ${bound(n, issue.origin)}`, type: 'greater_than_equal' };
    default:
      return { msg: issue.message, type: 'value_error' };
  }
}

export function tooBigMessage(issue: z.core.$ZodIssueTooBig, found: ValueLookup): MsgAndType {
  const n = issue.maximum;
  switch (issue.origin) {
    case 'string':
      return { msg: `String should have at most ${n} ${plural(n, 'character')}`, type: 'string_too_long' };
    case 'array':
    case 'set': {
      const kind = issue.origin === 'set' ? 'Set' : 'List';
      const msg = `${kind} should have at most ${n} ${plural(n, 'item')} after validation${actualLength(found)}`;
      return { msg, type: 'too_long' };
    }
    case 'number':
    case 'int':
    case 'bigint':
    case 'date':
      return issue.inclusive === false
        ? { msg: `Input should be less than ${bound(n, issue.origin)}`, type: 'less_than' }
        : { msg: `Input should be less than or equal to ${bound(n, issue.origin)}`, type: 'less_than_equal' };
    default:
      return { msg: issue.message, type: 'value_error' };
  }
}

/** zod prints regexes as `/source/flags`; pydantic quotes the bare pattern. */
function bareRegex(pattern: string | undefined): string {
  if (pattern === undefined) return '';
  const match = /^\/(.*)\/[a-z]*$/s.exec(pattern);
  return match?.[1] ?? pattern;
}

export function invalidFormatMessage(issue: z.core.$ZodIssueInvalidStringFormat): MsgAndType {
  switch (issue.format) {
    case 'datetime':
      return { msg: 'Input should be a valid datetime', type: 'datetime_from_date_parsing' };
    case 'date':
      return { msg: 'Input should be a valid date', type: 'date_from_datetime_parsing' };
    case 'time':
      return { msg: 'Input should be a valid time', type: 'time_parsing' };
    case 'duration':
      return { msg: 'Input should be a valid duration', type: 'duration_parsing' };
    case 'email':
      return { msg: 'value is not a valid email address', type: 'value_error' };
    case 'uuid':
    case 'guid':
      return { msg: 'Input should be a valid UUID', type: 'uuid_parsing' };
    case 'url':
      return { msg: 'Input should be a valid URL', type: 'url_parsing' };
    case 'regex':
      return { msg: `String should match pattern '${bareRegex(issue.pattern)}'`, type: 'string_pattern_mismatch' };
    default:
      return { msg: issue.message, type: 'value_error' };
  }
}

export function invalidValueMessage(issue: z.core.$ZodIssueInvalidValue, found: ValueLookup): MsgAndType {
  if (!found.present) return MISSING;
  // `z.stringbool()` reports its accepted spellings as an enum; pydantic treats it as a boolean.
  if ('expected' in issue && issue.expected === 'stringbool') {
    return { msg: 'Input should be a valid boolean, unable to interpret input', type: 'bool_parsing' };
  }
  return { msg: `Input should be ${pyAlternatives(issue.values)}`, type: 'enum' };
}

export function customMessage(issue: z.core.$ZodIssueCustom): MsgAndType {
  // A refinement may name its own pydantic-style type via `params: { type }`.
  const declared: unknown = issue.params?.['type'];
  return { msg: issue.message, type: typeof declared === 'string' ? declared : 'value_error' };
}
