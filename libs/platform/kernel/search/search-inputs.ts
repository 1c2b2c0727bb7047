import { z } from 'zod';
import { AppError, type ValidationIssue } from '../errors';
import { compileFilter, type VectorFilter } from './vector-filter';

/**
 * What a search request carries to a vector store, as message and request fields: the fields
 * parse to exactly the types the vectors port takes (`VectorFilter`, `FusionOptions`), so
 * nothing between the HTTP body and the store casts them.
 */

/** Whether `value` is a filter of the grammar; else `issues` holds what `compileFilter` refused (locations below `filters`). */
function isVectorFilter(value: Readonly<Record<string, unknown>>, issues: ValidationIssue[]): value is VectorFilter {
  try {
    compileFilter(value);
    return true;
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== 'validation') throw error;
    issues.push(...error.issues);
    return false;
  }
}

/**
 * A filter of the grammar (vector-filter.ts): any JSON object in the documents, checked by the
 * grammar's compiler when parsed, so a refusal names the place (`filters.$and.0.metadata.x`)
 * and says what is wrong in the compiler's words.
 */
export const VectorFilterInput = z.record(z.string(), z.unknown()).transform((value, ctx): VectorFilter => {
  const issues: ValidationIssue[] = [];
  if (isVectorFilter(value, issues)) return value;
  // The compiler locates below `filters`; zod locates below this field.
  for (const issue of issues) ctx.issues.push({ code: 'custom', message: issue.msg, path: [...issue.loc.slice(1)], input: value });
  return z.NEVER;
});

const LegWeights = z.object({ vector: z.number().min(0).max(100), keyword: z.number().min(0).max(100) });

/** How a hybrid search fuses its two legs (fusion.ts in the vectors port says what each method computes). */
export const FusionOptionsInput = z
  .discriminatedUnion('method', [
    z.object({ method: z.literal('weighted_score'), weight: z.number().min(0).max(1).optional().describe('Vector weight; default 0.7') }),
    z.object({
      method: z.literal('rrf'),
      k: z.number().int().min(1).max(1000).optional().describe('Default 60'),
      weights: LegWeights.optional(),
    }),
    z.object({ method: z.literal('relative_score'), alpha: z.number().min(0).max(1).optional().describe('Vector weight after min-max normalisation; default 0.5') }),
    z.object({ method: z.literal('dbsf'), weights: LegWeights.optional() }),
  ])
  .describe('Hybrid fusion; default weighted_score (README: how it was chosen)');

export type FusionOptions = z.output<typeof FusionOptionsInput>;
export type LegWeights = z.output<typeof LegWeights>;
