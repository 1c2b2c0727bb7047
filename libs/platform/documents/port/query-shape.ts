/**
 * Shape rules every query goes through before an adapter translates it: names and paths are
 * validated here because they are spliced into SQL text or become MongoDB query keys (values
 * never are; a leading `$` would smuggle in an operator), and the sort
 * is resolved to a total order so that keyset cursors can continue strictly after an item.
 * Shared by every adapter, so they agree for the contract suite.
 */
import { createHash } from 'node:crypto';
import { AppError } from '@lore/platform/kernel';
import { decodeCursor, encodeCursor } from './cursor';
import type { Doc, Filter, FindOptions, Scalar, Sort, SortDirection } from './documents.port';

/** A leading letter or digit keeps names clear of engine-reserved ones (`_checkpoints`, `sqlite_*`). */
const COLLECTION_NAME = /^[a-z0-9][a-z0-9_]{0,62}$/;
/** Dot-separated segments only: no quotes, brackets or `$` can reach the SQL text. */
const FIELD_PATH = /^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/;

export function assertCollectionName(name: string): void {
  if (!COLLECTION_NAME.test(name)) throw new Error(`invalid collection name ${JSON.stringify(name)}: use [a-z0-9_], starting with a letter or digit`);
}

export function assertFieldPath(path: string): void {
  if (!FIELD_PATH.test(path)) throw new Error(`invalid field path ${JSON.stringify(path)}: use [A-Za-z0-9_] segments separated by dots`);
}

export function assertCount(value: number | undefined, what: 'limit' | 'skip'): void {
  if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) throw new Error(`${what} must be a non-negative integer, got ${value}`);
}

export function isScalar(value: unknown): value is Scalar {
  return value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));
}

export interface SortKey {
  readonly field: string;
  readonly direction: SortDirection;
}

/**
 * The caller's keys followed by `id`, which makes the order total. The tie-breaker follows
 * the direction of the last key: ids are time-ordered, so "newest first" stays newest first
 * among equal values. Keys after an explicit `id` can never decide anything and are dropped.
 */
export function resolveSort(sort: Sort | undefined): SortKey[] {
  const keys: SortKey[] = [];
  for (const [field, direction] of sort ?? []) {
    assertFieldPath(field);
    if (direction !== 'asc' && direction !== 'desc') throw new Error(`invalid sort direction ${String(direction)}`);
    keys.push({ field, direction });
    if (field === 'id') return keys;
  }
  keys.push({ field: 'id', direction: keys.at(-1)?.direction ?? 'asc' });
  return keys;
}

/** The value a document holds at a dotted path; absent reads as null, as engines sort it. */
export function valueAt(doc: Doc, path: string): unknown {
  let current: unknown = doc;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return null;
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined ? null : current;
}

/** Names the query a cursor belongs to: its sort keys and filter. */
function queryFingerprint(keys: readonly SortKey[], filter: Filter | undefined): string {
  return createHash('sha256').update(JSON.stringify([keys, filter ?? null])).digest('base64url').slice(0, 12);
}

/** The sort values of the keys in order, ending with the id (the last key is always `id`). */
export function readCursor(cursor: string, keys: readonly SortKey[], filter?: Filter): Scalar[] {
  const position = decodeCursor(cursor);
  const values = position?.values;
  const otherQuery = position?.query !== undefined && position.query !== queryFingerprint(keys, filter);
  if (!position || !values || otherQuery || values.length !== keys.length - 1 || !values.every(isScalar)) {
    throw new AppError('validation', 'cursor is invalid or belongs to another query', [
      { loc: ['query', 'cursor'], msg: 'cursor is invalid or belongs to another query', type: 'value_error' },
    ]);
  }
  return [...values, position.id];
}

export function cursorAfter(doc: Doc, keys: readonly SortKey[], filter?: Filter): string {
  const values = keys.slice(0, -1).map((key) => {
    const value = valueAt(doc, key.field);
    // A keyset position must be a scalar the engine can compare with; objects and arrays are not.
    if (!isScalar(value)) throw new Error(`cannot page by ${key.field}: document ${doc.id} holds a non-scalar there`);
    return value;
  });
  return encodeCursor({ values, id: doc.id, query: queryFingerprint(keys, filter) });
}

/** A filter operand that must be one scalar. */
export function scalarOperand(path: string, operator: string, operand: unknown): Scalar {
  if (!isScalar(operand)) throw new Error(`filter on ${path}: ${operator} takes a string, number, boolean or null`);
  return operand;
}

/** A filter operand that must be an array of scalars. */
export function scalarsOperand(path: string, operator: string, operand: unknown): Scalar[] {
  if (!Array.isArray(operand) || !operand.every(isScalar)) throw new Error(`filter on ${path}: ${operator} takes an array of scalars`);
  return operand;
}

/** What every adapter's `find` checks and derives before it queries: total order, bounds, cursor position. */
export function planFind(options: FindOptions): { keys: SortKey[]; limit: number | undefined; position: Scalar[] | undefined } {
  const keys = resolveSort(options.sort);
  const { limit, cursor } = options;
  assertCount(options.skip, 'skip');
  assertCount(limit, 'limit');
  if (limit === 0) throw new Error('limit must be at least 1');
  return { keys, limit, position: cursor === undefined ? undefined : readCursor(cursor, keys, options.filter) };
}
