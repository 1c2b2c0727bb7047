import { z } from 'zod';
import type { ValidationIssue } from '@lore/platform/kernel';
import {
  errorBody,
  httpStatusOf,
  jsonDecodeIssue,
  jsonNestingIssue,
  validationErrorBody,
  zodIssuesToValidationIssues,
  type RequestLocation,
} from './validation-errors';

function issuesOf(schema: z.ZodType, input: unknown, location: RequestLocation = 'body'): ValidationIssue[] {
  const result = schema.safeParse(input);
  if (result.success) throw new Error('expected the input to be rejected');
  return zodIssuesToValidationIssues(result.error.issues, location, input, schema);
}

function only(schema: z.ZodType, input: unknown, location: RequestLocation = 'body'): ValidationIssue {
  const issues = issuesOf(schema, input, location);
  expect(issues).toHaveLength(1);
  return issues[0] as ValidationIssue;
}

describe('zodIssuesToValidationIssues', () => {
  it('reports an absent required field as missing', () => {
    expect(only(z.object({ name: z.string() }), {})).toEqual({ loc: ['body', 'name'], msg: 'Field required', type: 'missing' });
  });

  it('reports an absent body as missing at the body itself', () => {
    expect(only(z.object({ name: z.string() }), undefined)).toEqual({ loc: ['body'], msg: 'Field required', type: 'missing' });
  });

  it('reports null for a string as a type error, not as missing', () => {
    expect(only(z.object({ name: z.string() }), { name: null })).toMatchObject({ type: 'string_type', msg: 'Input should be a valid string' });
  });

  it.each([
    [z.string().min(1), '', 'String should have at least 1 character', 'string_too_short'],
    [z.string().min(3), 'ab', 'String should have at least 3 characters', 'string_too_short'],
    [z.string().max(255), 'x'.repeat(256), 'String should have at most 255 characters', 'string_too_long'],
    [z.string().max(1), 'ab', 'String should have at most 1 character', 'string_too_long'],
  ])('maps string length %#', (schema, value, msg, type) => {
    expect(only(z.object({ label: schema }), { label: value })).toEqual({ loc: ['body', 'label'], msg, type });
  });

  it.each([
    [z.number().min(1), 0, 'Input should be greater than or equal to 1', 'greater_than_equal'],
    [z.number().gt(1), 1, 'Input should be greater than 1', 'greater_than'],
    [z.number().max(100), 101, 'Input should be less than or equal to 100', 'less_than_equal'],
    [z.number().lt(100), 100, 'Input should be less than 100', 'less_than'],
    [z.number().multipleOf(5), 7, 'Input should be a multiple of 5', 'multiple_of'],
  ])('maps number bounds %#', (schema, value, msg, type) => {
    expect(only(z.object({ n: schema }), { n: value })).toEqual({ loc: ['body', 'n'], msg, type });
  });

  it('maps list lengths with the actual length', () => {
    const schema = z.object({ tags: z.array(z.string()).min(2).max(3) });
    expect(only(schema, { tags: ['a', 'b', 'c', 'd'] })).toEqual({
      loc: ['body', 'tags'],
      msg: 'List should have at most 3 items after validation, not 4',
      type: 'too_long',
    });
    expect(only(schema, { tags: ['a'] })).toEqual({
      loc: ['body', 'tags'],
      msg: 'List should have at least 2 items after validation, not 1',
      type: 'too_short',
    });
  });

  it.each([
    [z.string(), 5, 'Input should be a valid string', 'string_type'],
    [z.number(), true, 'Input should be a valid number', 'float_type'],
    [z.number(), 'abc', 'Input should be a valid number, unable to parse string as a number', 'float_parsing'],
    [z.number().int(), 1.5, 'Input should be a valid integer, got a number with a fractional part', 'int_from_float'],
    [z.int(), false, 'Input should be a valid integer', 'int_type'],
    [z.boolean(), 1, 'Input should be a valid boolean', 'bool_type'],
    [z.boolean(), 'maybe', 'Input should be a valid boolean, unable to interpret input', 'bool_parsing'],
    [z.array(z.string()), 'a', 'Input should be a valid list', 'list_type'],
    [z.object({}), 3, 'Input should be a valid dictionary or object to extract fields from', 'model_attributes_type'],
    [z.record(z.string(), z.string()), [], 'Input should be a valid dictionary', 'dict_type'],
  ])('maps wrong types %#', (schema, value, msg, type) => {
    expect(only(z.object({ v: schema }), { v: value })).toEqual({ loc: ['body', 'v'], msg, type });
  });

  it('reports unparsable integer query strings as int_parsing', () => {
    const query = z.object({ limit: z.coerce.number().int().min(1).max(100) });
    expect(only(query, { limit: 'abc' }, 'query')).toEqual({
      loc: ['query', 'limit'],
      msg: 'Input should be a valid integer, unable to parse string as an integer',
      type: 'int_parsing',
    });
    expect(only(query, { limit: '2.5' }, 'query').type).toBe('int_parsing');
    expect(only(query, { limit: '0' }, 'query')).toMatchObject({ type: 'greater_than_equal', loc: ['query', 'limit'] });
  });

  it('maps enum values in pydantic wording', () => {
    expect(only(z.object({ status: z.enum(['a', 'b', 'c']) }), { status: 'x' })).toEqual({
      loc: ['body', 'status'],
      msg: "Input should be 'a', 'b' or 'c'",
      type: 'enum',
    });
    expect(only(z.object({ status: z.enum(['a', 'b']) }), { status: 'x' }).msg).toBe("Input should be 'a' or 'b'");
  });

  it('maps an invalid datetime', () => {
    expect(only(z.object({ expires_at: z.iso.datetime() }), { expires_at: 'tomorrow' })).toEqual({
      loc: ['body', 'expires_at'],
      msg: 'Input should be a valid datetime',
      type: 'datetime_from_date_parsing',
    });
  });

  it('maps other string formats', () => {
    const schema = z.object({ id: z.uuid(), site: z.url(), code: z.string().regex(/^[a-z]+$/) });
    expect(issuesOf(schema, { id: 'x', site: 'nope', code: '1' })).toEqual([
      { loc: ['body', 'id'], msg: 'Input should be a valid UUID', type: 'uuid_parsing' },
      { loc: ['body', 'site'], msg: 'Input should be a valid URL', type: 'url_parsing' },
      { loc: ['body', 'code'], msg: "String should match pattern '^[a-z]+$'", type: 'string_pattern_mismatch' },
    ]);
  });

  it('reports each unrecognized key of a strict object with the key in loc', () => {
    expect(issuesOf(z.strictObject({ a: z.string() }), { a: 'x', b: 1, c: 2 })).toEqual([
      { loc: ['body', 'b'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
      { loc: ['body', 'c'], msg: 'Extra inputs are not permitted', type: 'extra_forbidden' },
    ]);
  });

  it('keeps the message of custom refinements as a value_error', () => {
    const schema = z.object({ name: z.string().refine((v) => v !== 'root', 'name is reserved') });
    expect(only(schema, { name: 'root' })).toEqual({ loc: ['body', 'name'], msg: 'name is reserved', type: 'value_error' });
  });

  it('lets a refinement name its own type', () => {
    const schema = z.string().refine(() => false, { message: 'nope', params: { type: 'custom_rule' } });
    expect(only(schema, 'x', 'header')).toEqual({ loc: ['header'], msg: 'nope', type: 'custom_rule' });
  });

  it('includes array indices and nested keys in loc', () => {
    const schema = z.object({ items: z.array(z.object({ qty: z.number() })) });
    expect(only(schema, { items: [{ qty: 1 }, {}] })).toEqual({ loc: ['body', 'items', 1, 'qty'], msg: 'Field required', type: 'missing' });
  });

  it('explains a union failure through the branch that got furthest', () => {
    const schema = z.object({ v: z.union([z.string(), z.object({ n: z.number() })]) });
    expect(only(schema, { v: { n: 'x' } })).toMatchObject({ loc: ['body', 'v', 'n'], type: 'float_parsing' });
  });

  it('reports a bad discriminator at the object that carries it', () => {
    const schema = z.discriminatedUnion('kind', [z.object({ kind: z.literal('a') }), z.object({ kind: z.literal('b') })]);
    expect(only(z.object({ v: schema }), { v: { kind: 'c' } })).toEqual({
      loc: ['body', 'v'],
      msg: "Input tag 'c' found using 'kind' does not match any of the expected tags: 'a', 'b'",
      type: 'union_tag_invalid',
    });
  });

  it('uses the given location for path parameters', () => {
    expect(only(z.object({ memory_id: z.string().min(1) }), { memory_id: '' }, 'path').loc).toEqual(['path', 'memory_id']);
  });
});

describe('error bodies', () => {
  it('shapes a JSON decode failure like FastAPI', () => {
    expect(jsonDecodeIssue(12)).toEqual({ loc: ['body', 12], msg: 'JSON decode error', type: 'json_invalid' });
  });

  it('reports a body nested too deeply as json_invalid at the offending position, naming the limit', () => {
    expect(jsonNestingIssue(320, 64)).toEqual({ loc: ['body', 320], msg: 'JSON decode error: nested deeper than 64 levels', type: 'json_invalid' });
  });

  it('wraps issues and messages in detail', () => {
    const issue = { loc: ['body'], msg: 'm', type: 't' };
    expect(validationErrorBody([issue])).toEqual({ detail: [issue] });
    expect(errorBody('Not authenticated')).toEqual({ detail: 'Not authenticated' });
  });

  it.each([
    ['validation', 422],
    ['unauthenticated', 401],
    ['forbidden', 403],
    ['not_found', 404],
    ['conflict', 409],
    ['too_large', 413],
    ['rate_limited', 429],
    ['unavailable', 503],
    ['internal', 500],
  ] as const)('maps %s to %i', (code, status) => {
    expect(httpStatusOf(code)).toBe(status);
  });
});
