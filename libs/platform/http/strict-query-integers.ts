import type { z } from 'zod';
import type { ValidationIssue } from '@lore/platform/kernel';
import { INT_PARSING } from './pydantic-messages';
import { expectsIntegerAt } from './zod-introspection';

/** An optional sign, then decimal digits: how FastAPI reads an integer query parameter. */
const DECIMAL_INTEGER = /^[+-]?\d+$/;

/**
 * Integer query parameters written otherwise than in decimal digits: `z.coerce.number()` alone
 * took `1e2`, `0x10`, `0b1` and ` 5` for 100, 16, 1 and 5, which FastAPI refuses (int_parsing).
 * The schemas stay `z.coerce.number().int()`, documented as the integers they are with their
 * defaults; this refuses such spellings of their fields, and returns the query without those
 * fields so that the rest is still checked (every problem reported at once).
 */
export function strictQueryIntegers(schema: z.ZodType, query: unknown): { readonly issues: ValidationIssue[]; readonly rest: unknown } {
  if (typeof query !== 'object' || query === null) return { issues: [], rest: query };
  const issues: ValidationIssue[] = [];
  const rest: Record<string, unknown> = { ...(query as Record<string, unknown>) };
  for (const [key, value] of Object.entries(rest)) {
    if (typeof value !== 'string' || DECIMAL_INTEGER.test(value) || !expectsIntegerAt(schema, [key])) continue;
    issues.push({ loc: ['query', key], ...INT_PARSING });
    delete rest[key];
  }
  return { issues, rest };
}
