import { z } from 'zod';
import { skipLimitQuery } from './pagination';
import { strictQueryIntegers } from './strict-query-integers';

describe('strictQueryIntegers', () => {
  const query = skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({ cursor: z.string().optional(), archived: z.string().optional() });

  it('refuses integer fields not written in decimal digits, and leaves them out of what is parsed next', () => {
    const { issues, rest } = strictQueryIntegers(query, { limit: '1e2', skip: '0x10', cursor: '0x10', archived: '1e2' });
    expect(issues).toEqual([
      { loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
      { loc: ['query', 'skip'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' },
    ]);
    // Text fields keep any text; the refused fields are gone, so the rest still parses (defaults apply).
    expect(rest).toEqual({ cursor: '0x10', archived: '1e2' });
  });

  it('lets decimal integers, signs included, through to the schema (which checks their bounds)', () => {
    for (const value of ['5', '+5', '-1', '007']) expect(strictQueryIntegers(query, { limit: value }).issues).toEqual([]);
    for (const value of [' 5', '5 ', '1.0', '', '0b1', 'Infinity']) expect(strictQueryIntegers(query, { limit: value }).issues).toHaveLength(1);
  });
});
