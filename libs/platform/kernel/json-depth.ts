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

/**
 * Position of the first `{` or `[` that opens a container deeper than `maxDepth` (the body's
 * own object or array is level 1), or -1. Scans the text, so nothing deep is ever built.
 * Malformed JSON is left to the parser; brackets inside strings do not count.
 */
export function nestingOverflowPosition(text: string, maxDepth: number): number {
  // Each level needs at least two characters ("[]"), so a short text cannot be too deep.
  if (text.length < 2 * (maxDepth + 1)) return -1;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return i;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return -1;
}
