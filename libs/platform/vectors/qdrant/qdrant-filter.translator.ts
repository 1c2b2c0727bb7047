/**
 * Translates a compiled filter (`FilterNode`) into a Qdrant filter (`must` / `should` /
 * `must_not`). The port's semantics are Qdrant's own, so the mapping is direct:
 * - payload keys are the port's paths (`content_id`, `tags`, `metadata.a.b`), validated
 *   by the port's filter compiler to [A-Za-z0-9_] segments;
 * - equality is `match` (strings, integers, booleans; Qdrant matches any element of an
 *   array and is type-strict), a fractional number is the range [v, v] (`match` takes
 *   integers only); `$in` is `match.any` per type;
 * - ranges are `range`, with RFC 3339 strings for datetimes (Qdrant compares those as instants);
 * - exists is `must_not: is_empty` (is_empty: absent, null or []);
 * - every filter is ANDed with the scope, `collection_id` among the searched collections
 *   (a keyword index with `is_tenant`).
 */
import type { Schemas } from '@qdrant/js-client-rest';
import { type FilterNode, type MatchValue, type RangeBounds } from '@lore/platform/kernel';

export type QdrantFilter = Schemas['Filter'];
export type QdrantCondition = Schemas['Condition'];

export const COLLECTION_KEY = 'collection_id';

/** The scoped filter, or null when the filter matches nothing (the caller then skips the request). */
export function scopedFilter(collections: readonly string[], node: FilterNode): QdrantFilter | null {
  if (node.kind === 'none') return null;
  const scope: QdrantCondition = { key: COLLECTION_KEY, match: { any: [...collections] } };
  return node.kind === 'all' ? { must: [scope] } : { must: [scope, condition(node)] };
}

export function condition(node: FilterNode): QdrantCondition {
  switch (node.kind) {
    case 'all':
      return { must: [] };
    case 'none':
      // Never produced below the root by the compiler; an impossible id would express it.
      return { has_id: [] };
    case 'and':
      return { must: node.nodes.map(condition) };
    case 'or':
      return { should: node.nodes.map(condition) };
    case 'not':
      return { must_not: [condition(node.node)] };
    case 'match':
      return match(node.path.key, node.values);
    case 'range':
      return { key: node.path.key, range: node.type === 'number' ? node.bounds : datetimeBounds(node.bounds) };
    case 'exists':
      return { must_not: [{ is_empty: { key: node.path.key } }] };
  }
}

function match(key: string, values: readonly MatchValue[]): QdrantCondition {
  const parts: QdrantCondition[] = [];
  const strings = values.filter((v): v is string => typeof v === 'string');
  const integers = values.filter((v): v is number => typeof v === 'number' && Number.isSafeInteger(v));
  const fractions = values.filter((v): v is number => typeof v === 'number' && !Number.isSafeInteger(v));
  if (strings.length === 1) parts.push({ key, match: { value: strings[0] ?? '' } });
  else if (strings.length > 1) parts.push({ key, match: { any: strings } });
  if (integers.length === 1) parts.push({ key, match: { value: integers[0] ?? 0 } });
  else if (integers.length > 1) parts.push({ key, match: { any: integers } });
  for (const value of fractions) parts.push({ key, range: { gte: value, lte: value } });
  for (const flag of [true, false]) if (values.includes(flag)) parts.push({ key, match: { value: flag } });
  return parts.length === 1 ? (parts[0] ?? { must: [] }) : { should: parts };
}

function datetimeBounds(bounds: RangeBounds): Schemas['DatetimeRange'] {
  const iso = (ms: number | undefined): string | undefined => (ms === undefined ? undefined : new Date(ms).toISOString());
  const out: Schemas['DatetimeRange'] = {};
  const { gt, gte, lt, lte } = { gt: iso(bounds.gt), gte: iso(bounds.gte), lt: iso(bounds.lt), lte: iso(bounds.lte) };
  if (gt !== undefined) out.gt = gt;
  if (gte !== undefined) out.gte = gte;
  if (lt !== undefined) out.lt = lt;
  if (lte !== undefined) out.lte = lte;
  return out;
}
