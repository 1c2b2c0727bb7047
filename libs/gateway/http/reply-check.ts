import type { RouteSpec } from '@lore/platform/http';

/**
 * The run-time half of "a route returns what its schema describes" (LORE_CHECK_REPLIES, on in
 * tests; the compile-time half is `route`'s reply type). The reply is checked in its wire form
 * (what JSON.stringify sends): it must parse with the route's `response` schema, and carry no
 * field the schema drops (a field the OpenAPI document does not show, which the compiler
 * cannot see when a handler returns a variable). Returns what is wrong, or null.
 */
export function replyMismatch(route: RouteSpec, reply: unknown): string | null {
  const wire: unknown = reply === undefined ? undefined : JSON.parse(JSON.stringify(reply));
  const parsed = route.response.safeParse(wire);
  if (!parsed.success) {
    return parsed.error.issues.map((issue) => `${['reply', ...issue.path.map(String)].join('.')}: ${issue.message}`).join('; ');
  }
  const undescribed = droppedFields(wire, parsed.data, 'reply');
  return undescribed.length === 0 ? null : `fields the schema does not describe: ${undescribed.join(', ')}`;
}

/** Paths present in the wire reply and absent from what the schema made of it (zod objects strip unknown keys). */
function droppedFields(wire: unknown, parsed: unknown, path: string): string[] {
  if (Array.isArray(wire)) {
    if (!Array.isArray(parsed)) return [];
    return wire.flatMap((item, i) => droppedFields(item, parsed[i], `${path}.${i}`));
  }
  if (!isObject(wire) || !isObject(parsed)) return [];
  return Object.entries(wire).flatMap(([key, value]) => (Object.hasOwn(parsed, key) ? droppedFields(value, parsed[key], `${path}.${key}`) : [`${path}.${key}`]));
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
