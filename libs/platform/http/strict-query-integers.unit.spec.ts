import { z } from 'zod';
import type { ValidationIssue } from '@lore/platform/kernel';
import { skipLimitQuery } from './pagination';
import { integerQueryFields, strictQueryIntegers } from './strict-query-integers';

describe('strictQueryIntegers', () => {
  const fields = integerQueryFields(skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({ cursor: z.string().optional(), archived: z.string().optional() }));
  const check = (query: Record<string, string>): { issues: ValidationIssue[]; rest: unknown } => {
    const issues: ValidationIssue[] = [];
    return { rest: strictQueryIntegers(fields, query, issues), issues };
  };

  it('refuses integer fields not written in decimal digits, and leaves them out of what is parsed next', () => {
    const { issues, rest } = check({ limit: '1e2', skip: '0x10', cursor: '0x10', archived: '1e2' });
    expect(issues).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
      { loc: ['query', 'skip'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
    ]);
    // Text fields keep any text; the refused fields are gone, so the rest still parses (defaults apply).
    expect(rest).toEqual({ cursor: '0x10', archived: '1e2' });
  });

  it('lets decimal integers, signs included, through to the schema (which checks their bounds)', () => {
    for (const value of ['5', '+5', '-1', '007']) expect(check({ limit: value }).issues).toEqual([]);
    for (const value of [' 5', '5 ', '1.0', '', '0b1', 'Infinity']) expect(check({ limit: value }).issues).toHaveLength(1);
  });
});
