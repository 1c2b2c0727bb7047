/**
 * Translates a compiled filter (`FilterNode`) into SQL over a points row aliased `p`, and
 * picks out the conditions sqlite-vec can evaluate inside its KNN scan (vec0 metadata columns).
 *
 * Values are always bound parameters; the only user-derived text in the SQL is a metadata
 * path, whose keys the filter compiler restricted to [A-Za-z0-9_], and which is quoted
 * anyway. Every predicate yields 0 or 1, never NULL, so `NOT` keeps its meaning for absent
 * fields. Arrays match when any element does (json_each), as in the port's reference
 * evaluator and in Qdrant.
 */
import { withinBounds } from '@lore/platform/vectors/port';
import { type FieldPath, type FilterNode, type MatchValue, type RangeBounds, parseDatetime } from '@lore/platform/kernel';

export type SqlValue = string | number | bigint | null;

/** A deterministic SQL function: 1 when the text parses as a datetime within the bounds (epoch ms, NULL = unbounded). */
export const DATETIME_FUNCTION = 'lore_datetime_within';

export function datetimeWithin(value: unknown, gt: unknown, gte: unknown, lt: unknown, lte: unknown): number {
  if (typeof value !== 'string') return 0;
  const instant = parseDatetime(value);
  if (instant === null) return 0;
  const bound = (b: unknown): number | undefined => (typeof b === 'number' ? b : undefined);
  const bounds: { gt?: number; gte?: number; lt?: number; lte?: number } = {};
  for (const [key, b] of [['gt', gt], ['gte', gte], ['lt', lt], ['lte', lte]] as const) {
    const n = bound(b);
    if (n !== undefined) bounds[key] = n;
  }
  return withinBounds(instant, bounds) ? 1 : 0;
}

/** Collects bound parameters in the order their placeholders appear. */
export class SqlParams {
  readonly values: SqlValue[] = [];

  bind(value: SqlValue | boolean): string {
    this.values.push(typeof value === 'boolean' ? (value ? 1 : 0) : value);
    return '?';
  }

  list(values: readonly SqlValue[]): string {
    return values.map((v) => this.bind(v)).join(', ');
  }
}

const ALWAYS = '1';
const NEVER = '0';

function quotedPath(segments: readonly string[]): string {
  return `'$${segments.map((s) => `."${s}"`).join('')}'`;
}

/** The SQL condition for a filter node over `p` (the points table). */
export function filterSql(node: FilterNode, params: SqlParams): string {
  switch (node.kind) {
    case 'all':
      return ALWAYS;
    case 'none':
      return NEVER;
    case 'and':
      return `(${node.nodes.map((n) => filterSql(n, params)).join(' AND ')})`;
    case 'or':
      return `(${node.nodes.map((n) => filterSql(n, params)).join(' OR ')})`;
    case 'not':
      return `(NOT ${filterSql(node.node, params)})`;
    case 'match':
      return matchSql(node.path, node.values, params);
    case 'range':
      return rangeSql(node.path, node.type, node.bounds, params);
    case 'exists':
      return existsSql(node.path);
  }
}

const strings = (values: readonly MatchValue[]): string[] => values.filter((v): v is string => typeof v === 'string');
const numbers = (values: readonly MatchValue[]): number[] => values.filter((v): v is number => typeof v === 'number');

function matchSql(path: FieldPath, values: readonly MatchValue[], params: SqlParams): string {
  switch (path.root) {
    case 'content_id': {
      const wanted = strings(values);
      return wanted.length === 0 ? NEVER : `p.content_id IN (${params.list(wanted)})`;
    }
    case 'source': {
      const wanted = strings(values);
      return wanted.length === 0 ? NEVER : `IFNULL(p.source IN (${params.list(wanted)}), 0)`;
    }
    case 'chunk_index': {
      const wanted = numbers(values);
      return wanted.length === 0 ? NEVER : `p.chunk_index IN (${params.list(wanted)})`;
    }
    case 'tags': {
      const wanted = strings(values);
      return wanted.length === 0 ? NEVER : `EXISTS (SELECT 1 FROM json_each(p.tags) AS e WHERE e.value IN (${params.list(wanted)}))`;
    }
    case 'metadata':
      return metadataSql(path.segments, (type, value) => valuePredicate(type, value, values, params));
  }
}

/** `type`/`value` are a JSON type name ('text', 'integer', 'real', 'true', …, or NULL) and its SQL value. */
function valuePredicate(type: string, value: string, values: readonly MatchValue[], params: SqlParams): string {
  const parts: string[] = [];
  const wantedStrings = strings(values);
  const wantedNumbers = numbers(values);
  if (wantedStrings.length > 0) parts.push(`(${type} IS 'text' AND ${value} IN (${params.list(wantedStrings)}))`);
  if (wantedNumbers.length > 0) parts.push(`(IFNULL(${type}, '') IN ('integer', 'real') AND ${value} IN (${params.list(wantedNumbers)}))`);
  if (values.includes(true)) parts.push(`${type} IS 'true'`);
  if (values.includes(false)) parts.push(`${type} IS 'false'`);
  return parts.length === 0 ? NEVER : `(${parts.join(' OR ')})`;
}

/** A predicate over the value at a metadata path, or over any element when it holds an array. */
function metadataSql(segments: readonly string[], predicate: (type: string, value: string) => string): string {
  const path = quotedPath(segments);
  const elements = `EXISTS (SELECT 1 FROM json_each(p.metadata, ${path}) AS e WHERE ${predicate('e.type', 'e.value')})`;
  const scalar = predicate(`json_type(p.metadata, ${path})`, `json_extract(p.metadata, ${path})`);
  return `(CASE json_type(p.metadata, ${path}) WHEN 'array' THEN ${elements} ELSE ${scalar} END)`;
}

function rangeSql(path: FieldPath, type: 'number' | 'datetime', bounds: RangeBounds, params: SqlParams): string {
  const predicate = (valueType: string, value: string): string => {
    if (type === 'number') {
      const parts = [`IFNULL(${valueType}, '') IN ('integer', 'real')`, ...numberBounds(value, bounds, params)];
      return `(${parts.join(' AND ')})`;
    }
    return `(${valueType} IS 'text' AND ${datetimeSql(value, bounds, params)})`;
  };
  switch (path.root) {
    case 'chunk_index':
      return type === 'number' ? `(${numberBounds('p.chunk_index', bounds, params).join(' AND ')})` : NEVER;
    case 'content_id':
      return type === 'datetime' ? datetimeSql('p.content_id', bounds, params) : NEVER;
    case 'source':
      return type === 'datetime' ? datetimeSql('p.source', bounds, params) : NEVER;
    case 'tags':
      return type === 'datetime' ? `EXISTS (SELECT 1 FROM json_each(p.tags) AS e WHERE ${datetimeSql('e.value', bounds, params)})` : NEVER;
    case 'metadata':
      return metadataSql(path.segments, predicate);
  }
}

function numberBounds(value: string, bounds: RangeBounds, params: SqlParams): string[] {
  const parts: string[] = [];
  if (bounds.gt !== undefined) parts.push(`${value} > ${params.bind(bounds.gt)}`);
  if (bounds.gte !== undefined) parts.push(`${value} >= ${params.bind(bounds.gte)}`);
  if (bounds.lt !== undefined) parts.push(`${value} < ${params.bind(bounds.lt)}`);
  if (bounds.lte !== undefined) parts.push(`${value} <= ${params.bind(bounds.lte)}`);
  return parts;
}

function datetimeSql(value: string, bounds: RangeBounds, params: SqlParams): string {
  const b = (x: number | undefined): string => params.bind(x ?? null);
  return `${DATETIME_FUNCTION}(${value}, ${b(bounds.gt)}, ${b(bounds.gte)}, ${b(bounds.lt)}, ${b(bounds.lte)})`;
}

function existsSql(path: FieldPath): string {
  switch (path.root) {
    case 'content_id':
    case 'chunk_index':
      return ALWAYS;
    case 'source':
      return '(p.source IS NOT NULL)';
    case 'tags':
      return '(json_array_length(p.tags) > 0)';
    case 'metadata': {
      const at = quotedPath(path.segments);
      return `(CASE IFNULL(json_type(p.metadata, ${at}), 'null') WHEN 'null' THEN 0 WHEN 'array' THEN json_array_length(p.metadata, ${at}) > 0 ELSE 1 END)`;
    }
  }
}

// ---- what sqlite-vec evaluates inside the KNN scan ----

/**
 * Conditions of the filter's top-level conjunction that vec0 metadata columns evaluate
 * exactly as `filterSql` does: `content_id` and `source` equal to / among non-empty strings
 * (vec0 stores a null source as ''), `chunk_index` equal to an integer or within integer
 * bounds. Everything else stays in `residual`, evaluated on the points table.
 */
export interface KnnPushdown {
  readonly sql: string[];
  readonly params: SqlValue[];
  /** The conditions vec0 cannot evaluate, or null when it evaluates them all. */
  readonly residual: FilterNode | null;
}

export function splitForKnn(node: FilterNode): KnnPushdown {
  const conjuncts = node.kind === 'and' ? node.nodes : node.kind === 'all' ? [] : [node];
  const sql: string[] = [];
  const params: SqlValue[] = [];
  const residual: FilterNode[] = [];
  for (const conjunct of conjuncts) {
    const pushed = pushdown(conjunct);
    if (pushed === null) residual.push(conjunct);
    else {
      sql.push(pushed.sql);
      params.push(...pushed.params);
    }
  }
  const rest: FilterNode | null = residual.length === 0 ? null : residual.length === 1 ? (residual[0] ?? null) : { kind: 'and', nodes: residual };
  return { sql, params, residual: rest };
}

function pushdown(node: FilterNode): { sql: string; params: SqlValue[] } | null {
  if (node.kind === 'match' && (node.path.root === 'content_id' || node.path.root === 'source')) {
    const column = node.path.root;
    if (!node.values.every((v) => typeof v === 'string' && v !== '')) return null;
    const values = node.values as string[];
    return values.length === 1 ? { sql: `${column} = ?`, params: values } : { sql: `${column} IN (${values.map(() => '?').join(', ')})`, params: values };
  }
  if (node.kind === 'match' && node.path.root === 'chunk_index' && node.values.length === 1) {
    const value = node.values[0];
    return typeof value === 'number' && Number.isSafeInteger(value) ? { sql: 'chunk_index = ?', params: [BigInt(value)] } : null;
  }
  if (node.kind === 'range' && node.path.root === 'chunk_index' && node.type === 'number') {
    // Integer bounds equivalent to the given ones on an integer column; vec0 wants integer operands there.
    const { gt, gte, lt, lte } = node.bounds;
    const sql: string[] = [];
    const params: SqlValue[] = [];
    const lower = Math.max(gt === undefined ? -Infinity : Math.floor(gt) + 1, gte === undefined ? -Infinity : Math.ceil(gte));
    const upper = Math.min(lt === undefined ? Infinity : Math.ceil(lt) - 1, lte === undefined ? Infinity : Math.floor(lte));
    if (Number.isFinite(lower)) {
      if (!Number.isSafeInteger(lower)) return null;
      sql.push('chunk_index >= ?');
      params.push(BigInt(lower));
    }
    if (Number.isFinite(upper)) {
      if (!Number.isSafeInteger(upper)) return null;
      sql.push('chunk_index <= ?');
      params.push(BigInt(upper));
    }
    return sql.length === 0 ? null : { sql: sql.join(' AND '), params };
  }
  return null;
}
