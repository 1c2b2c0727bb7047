/**
 * JSON nesting accepted in request bodies and messages. Deeper values would overflow the
 * stack of recursive code such as JSON.stringify (about 4,000 levels do); real metadata
 * stays far below this.
 */
export const MAX_JSON_DEPTH = 64;

/** Nesting depth of a parsed JSON value (a scalar is 0), computed without recursion; stops counting past `limit`. */
export function jsonDepth(value: unknown, limit = MAX_JSON_DEPTH): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop() as [unknown, number];
    if (typeof item !== 'object' || item === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (level > limit) return level;
    for (const child of Array.isArray(item) ? item : Object.values(item)) stack.push([child, level]);
  }
  return deepest;
}
