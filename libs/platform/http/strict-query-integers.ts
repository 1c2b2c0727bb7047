import type { z } from 'zod';
import type { ValidationIssue } from '@lore/platform/kernel';
import { INT_PARSING } from './pydantic-messages';
import { declaredFields, expectsIntegerAt } from './zod-introspection';

/** An optional sign, then decimal digits: how FastAPI reads an integer query parameter. */
const DECIMAL_INTEGER = /^[+-]?\d+$/;

/** A route's integer query fields, found once when the route is registered. */
export function integerQueryFields(schema: z.ZodType | undefined): ReadonlySet<string> {
  return new Set(schema === undefined ? [] : declaredFields(schema).filter((name) => expectsIntegerAt(schema, [name])));
}

/**
 * Integer query parameters written otherwise than in decimal digits: `z.coerce.number()` alone
 * took `1e2`, `0x10`, `0b1` and ` 5` for 100, 16, 1 and 5, which FastAPI refuses (int_parsing).
 * The schemas stay `z.coerce.number().int()`, documented as the integers they are with their
 * defaults; this refuses such spellings of their fields into `issues`, and returns the query
 * without those fields so that the rest is still checked (every problem reported at once).
 */
export function strictQueryIntegers(fields: ReadonlySet<string>, query: unknown, issues: ValidationIssue[]): unknown {
  if (fields.size === 0 || typeof query !== 'object' || query === null) return query;
  let rest: Record<string, unknown> | undefined;
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string' || !fields.has(name) || DECIMAL_INTEGER.test(value)) continue;
    issues.push({ loc: ['query', name], ...INT_PARSING });
    rest ??= { ...(query as Record<string, unknown>) };
    delete rest[name];
  }
  return rest ?? query;
}
