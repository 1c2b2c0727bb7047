/**
 * The one filter grammar of search and lists, and its compiled form.
 *
 * Grammar (MongoDB-like): `{ path: value }` is equality; `{ path: { $op: operand } }` with
 * `$eq $ne $in $nin $gt $gte $lt $lte $exists $contains $containsAll`; several entries in one
 * object must all hold; `$and`, `$or` (arrays of filters) and `$not` (a filter) combine.
 * Paths: `content_id`, `source`, `chunk_index`, `tags`, and `metadata.<key>[.<key>…]` with
 * keys of `[A-Za-z0-9_]` (nothing user-supplied ever reaches SQL text or a payload key
 * unchecked).
 *
 * Semantics, shared by every adapter (they follow Qdrant's, which is MongoDB's here):
 * - Type-strict: `5` never equals `"5"`, `true` never equals `1`.
 * - A field holding an array matches when any element does (`{tags: 'a'}` ≡ `{tags: {$contains: 'a'}}`);
 *   `$ne`/`$nin` are the negations, so they hold when no element matches, and for absent fields.
 * - `$gt…$lte` take a number (compares numbers only) or an ISO 8601 / RFC 3339 datetime
 *   string (compares strings that parse as datetimes, by instant; a datetime without a zone is UTC).
 * - `$exists: true` means present, not null and not an empty array; `null` as an equality
 *   operand means "does not exist" (`{x: null}` ≡ `{x: {$exists: false}}`).
 * - `$in: []` matches nothing, `$nin: []` and `$containsAll: []` everything, `$or: []` nothing, `$and: []` everything.
 * - Paths do not descend into arrays: `metadata.a.b` is absent when `metadata.a` is an array.
 */
import { AppError } from '../errors';
import { parseDatetime } from './datetime';

export type FilterScalar = string | number | boolean | null;

export interface FieldOperators {
  readonly $eq?: FilterScalar;
  readonly $ne?: FilterScalar;
  readonly $in?: readonly FilterScalar[];
  readonly $nin?: readonly FilterScalar[];
  readonly $gt?: number | string;
  readonly $gte?: number | string;
  readonly $lt?: number | string;
  readonly $lte?: number | string;
  readonly $exists?: boolean;
  readonly $contains?: string | number | boolean;
  readonly $containsAll?: ReadonlyArray<string | number | boolean>;
}

export type VectorFilter = {
  readonly $and?: readonly VectorFilter[];
  readonly $or?: readonly VectorFilter[];
  readonly $not?: VectorFilter;
} & {
  readonly [path: string]: FilterScalar | FieldOperators | readonly VectorFilter[] | VectorFilter | undefined;
};

/** Payload fields every point has, as columns (SQLite) or indexed payload keys (Qdrant). */
export const FIXED_FIELDS = ['content_id', 'source', 'chunk_index', 'tags'] as const;
export type FixedField = (typeof FIXED_FIELDS)[number];

export type FieldPath =
  | { readonly root: FixedField; readonly key: FixedField }
  /** `key` is the dotted path (`metadata.a.b`); `segments` the keys below metadata (`['a', 'b']`). */
  | { readonly root: 'metadata'; readonly key: string; readonly segments: readonly string[] };

export type MatchValue = string | number | boolean;

export interface RangeBounds {
  readonly gt?: number;
  readonly gte?: number;
  readonly lt?: number;
  readonly lte?: number;
}

/**
 * The compiled filter: validated, null-equality rewritten into `exists`, constants folded.
 * `all`/`none` only ever appear as the root; adapters translate the other kinds.
 */
export type FilterNode =
  | { readonly kind: 'all' }
  | { readonly kind: 'none' }
  | { readonly kind: 'and'; readonly nodes: readonly FilterNode[] }
  | { readonly kind: 'or'; readonly nodes: readonly FilterNode[] }
  | { readonly kind: 'not'; readonly node: FilterNode }
  /** The value (or any element of it) equals one of `values` (type-strict). */
  | { readonly kind: 'match'; readonly path: FieldPath; readonly values: readonly MatchValue[] }
  /** Numbers within bounds; or, for `datetime`, strings parsing as instants within bounds (epoch ms). */
  | { readonly kind: 'range'; readonly path: FieldPath; readonly type: 'number' | 'datetime'; readonly bounds: RangeBounds }
  /** Present, not null, not an empty array. */
  | { readonly kind: 'exists'; readonly path: FieldPath };

const ALL: FilterNode = { kind: 'all' };
const NONE: FilterNode = { kind: 'none' };

export const FILTER_LIMITS = {
  /** Nesting of objects, `$and`, `$or` and `$not`. */
  depth: 12,
  /** Conditions in one filter, counting every `$in` value. */
  conditions: 1024,
  stringLength: 1024,
  pathSegments: 8,
} as const;

const METADATA_KEY = /^[A-Za-z0-9_]{1,64}$/;
const RANGE_OPERATORS = ['$gt', '$gte', '$lt', '$lte'] as const;
type RangeOperator = (typeof RANGE_OPERATORS)[number];

type Loc = ReadonlyArray<string | number>;

function fail(loc: Loc, msg: string): never {
  throw new AppError('validation', `filters: ${msg}`, [{ loc: ['filters', ...loc], msg, type: 'value_error' }]);
}

/**
 * Validates and compiles a filter; throws AppError('validation') naming the offending place.
 * Takes any object: the grammar is checked here, whatever the caller's type says.
 */
export function compileFilter(filter: Readonly<Record<string, unknown>> | undefined): FilterNode {
  if (filter === undefined) return ALL;
  const budget = { conditions: 0 };
  return simplify(compileObject(filter, [], 0, budget));
}

interface Budget {
  conditions: number;
}

function spend(budget: Budget, loc: Loc, count = 1): void {
  budget.conditions += count;
  if (budget.conditions > FILTER_LIMITS.conditions) fail(loc, `more than ${FILTER_LIMITS.conditions} conditions`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function compileObject(filter: unknown, loc: Loc, depth: number, budget: Budget): FilterNode {
  if (!isPlainObject(filter)) fail(loc, 'a filter must be an object');
  if (depth > FILTER_LIMITS.depth) fail(loc, `nested deeper than ${FILTER_LIMITS.depth} levels`);
  const nodes: FilterNode[] = [];
  for (const [key, condition] of Object.entries(filter)) {
    if (condition === undefined) continue;
    const at = [...loc, key];
    switch (key) {
      case '$and':
      case '$or': {
        if (!Array.isArray(condition)) fail(at, `${key} takes an array of filters`);
        const parts = (condition as unknown[]).map((sub, i) => compileObject(sub, [...at, i], depth + 1, budget));
        nodes.push({ kind: key === '$and' ? 'and' : 'or', nodes: parts });
        break;
      }
      case '$not':
        nodes.push({ kind: 'not', node: compileObject(condition, at, depth + 1, budget) });
        break;
      default:
        if (key.startsWith('$')) fail(at, `unknown operator ${key}`);
        nodes.push(compileField(parsePath(key, at), condition, at, budget));
    }
  }
  return { kind: 'and', nodes };
}

export function parsePath(key: string, loc: Loc = [key]): FieldPath {
  if ((FIXED_FIELDS as readonly string[]).includes(key)) return { root: key as FixedField, key: key as FixedField };
  const [root, ...segments] = key.split('.');
  if (root === 'metadata' && segments.length > 0 && segments.length <= FILTER_LIMITS.pathSegments && segments.every((s) => METADATA_KEY.test(s))) {
    return { root: 'metadata', key, segments };
  }
  return fail(
    loc,
    `unknown field ${JSON.stringify(key)}: use content_id, source, chunk_index, tags or metadata.<key>[.<key>…] with keys of letters, digits and _ (at most ${FILTER_LIMITS.pathSegments})`,
  );
}

function compileField(path: FieldPath, condition: unknown, loc: Loc, budget: Budget): FilterNode {
  if (!isPlainObject(condition)) return equality(path, scalar(condition, loc, 'an equality'), loc, budget);
  const nodes: FilterNode[] = [];
  const bounds: Partial<Record<RangeOperator, number | string>> = {};
  for (const [operator, operand] of Object.entries(condition)) {
    if (operand === undefined) continue;
    const at = [...loc, operator];
    switch (operator) {
      case '$eq':
        nodes.push(equality(path, scalar(operand, at, operator), at, budget));
        break;
      case '$ne':
        nodes.push(negate(equality(path, scalar(operand, at, operator), at, budget)));
        break;
      case '$in':
        nodes.push(membership(path, scalars(operand, at, operator), at, budget));
        break;
      case '$nin':
        nodes.push(negate(membership(path, scalars(operand, at, operator), at, budget)));
        break;
      case '$gt':
      case '$gte':
      case '$lt':
      case '$lte':
        if (typeof operand !== 'number' && typeof operand !== 'string') fail(at, `${operator} takes a number or an ISO 8601 datetime string`);
        bounds[operator] = operand;
        break;
      case '$exists':
        if (typeof operand !== 'boolean') fail(at, '$exists takes true or false');
        spend(budget, at);
        nodes.push(operand ? { kind: 'exists', path } : negate({ kind: 'exists', path }));
        break;
      case '$contains': {
        const value = scalar(operand, at, operator);
        if (value === null) fail(at, '$contains takes a string, number or boolean');
        nodes.push(equality(path, value, at, budget));
        break;
      }
      case '$containsAll': {
        const values = scalars(operand, at, operator);
        if (values.includes(null)) fail(at, '$containsAll takes strings, numbers or booleans');
        nodes.push({ kind: 'and', nodes: values.map((value) => equality(path, value, at, budget)) });
        break;
      }
      default:
        fail(at, `unknown operator ${operator}`);
    }
  }
  if (Object.keys(bounds).length > 0) nodes.push(range(path, bounds, loc, budget));
  if (nodes.length === 0) fail(loc, 'an operator object needs at least one operator');
  return { kind: 'and', nodes };
}

function scalar(value: unknown, loc: Loc, what: string): FilterScalar {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(loc, `${what} takes a finite number`);
    return value;
  }
  if (typeof value === 'string') {
    if (value.length > FILTER_LIMITS.stringLength) fail(loc, `strings longer than ${FILTER_LIMITS.stringLength} characters`);
    return value;
  }
  return fail(loc, `${what} takes a string, number, boolean or null`);
}

function scalars(value: unknown, loc: Loc, what: string): FilterScalar[] {
  if (!Array.isArray(value)) fail(loc, `${what} takes an array`);
  return (value as unknown[]).map((item, i) => scalar(item, [...loc, i], what));
}

function equality(path: FieldPath, value: FilterScalar, loc: Loc, budget: Budget): FilterNode {
  spend(budget, loc);
  return value === null ? negate({ kind: 'exists', path }) : { kind: 'match', path, values: [value] };
}

function membership(path: FieldPath, values: readonly FilterScalar[], loc: Loc, budget: Budget): FilterNode {
  spend(budget, loc, Math.max(1, values.length));
  const present = dedupe(values.filter((v): v is MatchValue => v !== null));
  const nodes: FilterNode[] = [];
  if (values.includes(null)) nodes.push(negate({ kind: 'exists', path }));
  if (present.length > 0) nodes.push({ kind: 'match', path, values: present });
  return { kind: 'or', nodes };
}

function range(path: FieldPath, bounds: Partial<Record<RangeOperator, number | string>>, loc: Loc, budget: Budget): FilterNode {
  spend(budget, loc);
  const values = Object.values(bounds);
  if (values.every((v) => typeof v === 'number')) {
    return { kind: 'range', path, type: 'number', bounds: toBounds(bounds, (v) => v as number) };
  }
  if (values.every((v) => typeof v === 'string')) {
    const parsed = toBounds(bounds, (v, operator) => {
      const instant = parseDatetime(v as string);
      if (instant === null) fail([...loc, operator], `${operator} takes a number or an ISO 8601 datetime such as 2024-05-01 or 2024-05-01T12:00:00Z`);
      return instant;
    });
    return { kind: 'range', path, type: 'datetime', bounds: parsed };
  }
  return fail(loc, 'range bounds must be all numbers or all datetimes');
}

function toBounds(bounds: Partial<Record<RangeOperator, number | string>>, convert: (value: number | string, operator: RangeOperator) => number): RangeBounds {
  const out: { gt?: number; gte?: number; lt?: number; lte?: number } = {};
  for (const operator of RANGE_OPERATORS) {
    const value = bounds[operator];
    if (value !== undefined) out[operator.slice(1) as keyof RangeBounds] = convert(value, operator);
  }
  return out;
}

function dedupe(values: readonly MatchValue[]): MatchValue[] {
  const seen = new Set<string>();
  return values.filter((value) => {
    const key = `${typeof value}:${String(value)}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function negate(node: FilterNode): FilterNode {
  return { kind: 'not', node };
}

/** Folds constants so that `all`/`none` remain only at the root, and flattens nested and/or. */
function simplify(node: FilterNode): FilterNode {
  switch (node.kind) {
    case 'and':
    case 'or': {
      const absorbing = node.kind === 'and' ? 'none' : 'all';
      const neutral = node.kind === 'and' ? 'all' : 'none';
      const parts: FilterNode[] = [];
      for (const child of node.nodes.map(simplify)) {
        if (child.kind === absorbing) return child;
        if (child.kind === neutral) continue;
        if (child.kind === node.kind) parts.push(...child.nodes);
        else parts.push(child);
      }
      if (parts.length === 0) return node.kind === 'and' ? ALL : NONE;
      return parts.length === 1 ? (parts[0] ?? ALL) : { kind: node.kind, nodes: parts };
    }
    case 'not': {
      const inner = simplify(node.node);
      if (inner.kind === 'all') return NONE;
      if (inner.kind === 'none') return ALL;
      if (inner.kind === 'not') return inner.node;
      return { kind: 'not', node: inner };
    }
    case 'range':
      return isEmptyRange(node.bounds) ? NONE : node;
    default:
      return node;
  }
}

function isEmptyRange(bounds: RangeBounds): boolean {
  const low = bounds.gte ?? bounds.gt;
  const high = bounds.lte ?? bounds.lt;
  if (low === undefined || high === undefined) return false;
  return low > high || (low === high && (bounds.gt !== undefined || bounds.lt !== undefined));
}
