/**
 * The meaning of a compiled filter, evaluated in memory: the specification every adapter's
 * translation must agree with (the contract suite's brute-force oracle, and unit tests).
 */
import { parseDatetime, type FieldPath, type FilterNode, type RangeBounds } from '@lore/platform/kernel';
import type { JsonValue, PointPayload } from './vectors.port';

/** The value a payload holds at a path: undefined when absent. Paths do not descend into arrays. */
export function payloadValue(payload: PointPayload, path: FieldPath): JsonValue | undefined {
  if (path.root !== 'metadata') return payload[path.root];
  let current: JsonValue | undefined = payload.metadata;
  for (const segment of path.segments) {
    if (current === null || typeof current !== 'object' || Array.isArray(current)) return undefined;
    current = (current as { readonly [key: string]: JsonValue })[segment];
  }
  return current;
}

/** The values a condition looks at: the elements of an array, else the value itself. */
function candidates(value: JsonValue | undefined): readonly JsonValue[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? (value as readonly JsonValue[]) : [value];
}

export function matchesFilter(node: FilterNode, payload: PointPayload): boolean {
  switch (node.kind) {
    case 'all':
      return true;
    case 'none':
      return false;
    case 'and':
      return node.nodes.every((child) => matchesFilter(child, payload));
    case 'or':
      return node.nodes.some((child) => matchesFilter(child, payload));
    case 'not':
      return !matchesFilter(node.node, payload);
    case 'match':
      return candidates(payloadValue(payload, node.path)).some((value) => node.values.some((wanted) => typeof value === typeof wanted && value === wanted));
    case 'range':
      return candidates(payloadValue(payload, node.path)).some((value) => {
        const n = node.type === 'number' ? (typeof value === 'number' ? value : null) : typeof value === 'string' ? parseDatetime(value) : null;
        return n !== null && withinBounds(n, node.bounds);
      });
    case 'exists': {
      const value = payloadValue(payload, node.path);
      return value !== undefined && value !== null && !(Array.isArray(value) && value.length === 0);
    }
  }
}

export function withinBounds(value: number, bounds: RangeBounds): boolean {
  return (
    (bounds.gt === undefined || value > bounds.gt) &&
    (bounds.gte === undefined || value >= bounds.gte) &&
    (bounds.lt === undefined || value < bounds.lt) &&
    (bounds.lte === undefined || value <= bounds.lte)
  );
}
