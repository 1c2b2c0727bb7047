import { z } from 'zod';

/**
 * SPEC 2.9 offset envelope. Only `data` and `total_count` are required in the contract
 * (collections list), so the navigation fields are optional in the schema even though
 * `offsetPage` always fills them.
 */
export function offsetEnvelope<T extends z.ZodType>(item: T) {
  return z.object({
    data: z.array(item),
    total_count: z.number().int(),
    page: z.number().int().nullable().optional(),
    limit: z.number().int().nullable().optional(),
    next_page: z.number().int().nullable().optional(),
    next_cursor: z.string().nullable().optional(),
    has_more: z.boolean().nullable().optional(),
  });
}

export interface OffsetPage<T> {
  readonly data: T[];
  readonly total_count: number;
  /** Null when the page was reached by cursor: page numbers would be a guess. */
  readonly page: number | null;
  readonly limit: number;
  readonly next_page: number | null;
  readonly next_cursor: string | null;
  readonly has_more: boolean;
}

export interface OffsetPageInput<T> {
  readonly items: readonly T[];
  /** Matches across all pages, not just this one. */
  readonly total: number;
  readonly skip: number;
  readonly limit: number;
  readonly nextCursor?: string | null;
}

/** Fills the offset envelope; pages are 1-based and derived from skip, as in the original service. */
export function offsetPage<T>(input: OffsetPageInput<T>): OffsetPage<T> {
  // A zero limit never passes skipLimitQuery; guard anyway so a bad caller cannot produce Infinity.
  const limit = Math.max(1, Math.floor(input.limit));
  const skip = Math.max(0, Math.floor(input.skip));
  const page = Math.floor(skip / limit) + 1;
  const hasMore = skip + input.items.length < input.total;
  return {
    data: [...input.items],
    total_count: input.total,
    page,
    limit,
    next_page: hasMore ? page + 1 : null,
    next_cursor: input.nextCursor ?? null,
    has_more: hasMore,
  };
}

/**
 * The offset envelope for a page reached by `cursor`: `has_more` is exactly "there is a
 * cursor to continue from", and the page numbers, which a cursor does not know, are null.
 */
export function cursorOffsetPage<T>(input: { readonly items: readonly T[]; readonly total: number; readonly limit: number; readonly nextCursor: string | null }): OffsetPage<T> {
  return {
    data: [...input.items],
    total_count: input.total,
    page: null,
    limit: Math.max(1, Math.floor(input.limit)),
    next_page: null,
    next_cursor: input.nextCursor,
    has_more: input.nextCursor !== null,
  };
}

type CursorShape<K extends string, T extends z.ZodType> = { [P in K]: z.ZodArray<T> } & {
  next_cursor: z.ZodNullable<z.ZodString>;
  has_more: z.ZodBoolean;
};

/** SPEC 2.9 cursor envelope, e.g. `{ chunks, next_cursor, has_more }`. */
export function cursorEnvelope<K extends string, T extends z.ZodType>(key: K, item: T) {
  // A computed key widens to `string`; the cast restores the literal key for callers' types.
  const shape = { [key]: z.array(item), next_cursor: z.string().nullable(), has_more: z.boolean() } as CursorShape<K, T>;
  return z.object(shape);
}

export type CursorPage<K extends string, T> = { [P in K]: T[] } & {
  next_cursor: string | null;
  has_more: boolean;
};

/** `has_more` is exactly "there is a cursor to continue from", so it cannot disagree with it. */
export function cursorPage<K extends string, T>(key: K, items: readonly T[], nextCursor: string | null): CursorPage<K, T> {
  return { [key]: [...items], next_cursor: nextCursor, has_more: nextCursor !== null } as CursorPage<K, T>;
}

export interface SkipLimitOptions {
  readonly defaultLimit: number;
  readonly maxLimit: number;
}

/** `?skip=&limit=` with the bounds of SPEC 8; query values arrive as strings, hence coercion. */
export function skipLimitQuery(options: SkipLimitOptions) {
  return z.object({
    skip: z.coerce.number().int().min(0).default(0),
    limit: z.coerce.number().int().min(1).max(options.maxLimit).default(options.defaultLimit),
  });
}

const splitCommas = (value: string | readonly string[]): string[] =>
  (typeof value === 'string' ? [value] : value)
    .flatMap((part) => part.split(','))
    .map((part) => part.trim())
    .filter((part) => part.length > 0);

/**
 * `?tags=a,b, c` -> `['a', 'b', 'c']`. A repeated parameter (`?tags=a&tags=b`) reaches
 * us as an array, which is accepted too rather than rejected as "not a string".
 */
export const commaList = z.union([z.string(), z.array(z.string())]).transform(splitCommas);

/**
 * Boolean query flag. `z.coerce.boolean()` would turn "false" into true, so accept the
 * usual spellings explicitly (pydantic's set plus zod's defaults). Documented as a boolean
 * (`?flag=true`), not the string zod would describe: generated clients then take a boolean,
 * and a fuzzer sends what is accepted.
 */
export const queryBoolean = z
  .stringbool({
    truthy: ['true', '1', 'yes', 'on', 'y', 't'],
    falsy: ['false', '0', 'no', 'off', 'n', 'f'],
    case: 'insensitive',
  })
  .meta({ type: 'boolean' });
