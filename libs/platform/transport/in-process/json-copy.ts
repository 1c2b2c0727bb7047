/**
 * What `JSON.parse(JSON.stringify(value))` returns (what NATS would deliver: no shared
 * references, Dates as ISO strings, undefined properties dropped, top-level undefined kept as
 * undefined), built without the text when the value is plain data, which every message is:
 * the round trip through a string cost more than the rest of an in-process request.
 *
 * Plain data is copied member by member with JSON's rules, where they are simple:
 * - null, booleans and strings as they are (a string survives the round trip unchanged, lone
 *   surrogates included: they are escaped, then read back);
 * - finite numbers as they are, but -0 as 0 (ECMAScript's number-to-string round-trips every
 *   finite double), NaN and ±Infinity as null;
 * - arrays (of Array.prototype) index by index, `undefined` and symbols (holes read as
 *   undefined) as null;
 * - objects of Object.prototype or of none, own enumerable string keys in Object.keys order
 *   (JSON.stringify's order, and JSON.parse inserts them alike), members that are undefined or
 *   symbols left out; the copy is an ordinary object, as JSON.parse makes.
 * Anything else makes the whole value go through the JSON round trip itself, so it behaves
 * exactly as before: an object with a toJSON method (Dates), one of another prototype (class
 * instances, boxed primitives, Maps), a function, a bigint, a `__proto__` key (JSON.parse makes
 * it an own property), or nesting past {@link PLAIN_DEPTH} (a cycle: JSON.stringify throws its
 * own TypeError). The one difference: a getter read before such a fallback is read again by it.
 */
export function jsonCopy(value: unknown): unknown {
  const copied = plainCopy(value, 0);
  if (copied !== NOT_PLAIN) return copied;
  const text = JSON.stringify(value);
  return text === undefined ? undefined : (JSON.parse(text) as unknown);
}

/**
 * Deeper than any message the services accept (MAX_JSON_DEPTH is 64): past it the JSON round
 * trip decides, which throws on a cycle where copying would recurse until the stack overflows.
 */
const PLAIN_DEPTH = 100;

/** Returned by plainCopy for a value it leaves to the JSON round trip. */
const NOT_PLAIN: unique symbol = Symbol('not plain JSON data');

/** A member's copy; undefined for a member JSON leaves out of objects (null in arrays). */
function plainCopy(value: unknown, depth: number): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) ? (value === 0 ? 0 : value) : null;
    case 'undefined':
    case 'symbol':
      return undefined;
    case 'object':
      if (value === null) return null;
      return depth < PLAIN_DEPTH ? copyContainer(value, depth + 1) : NOT_PLAIN;
    default:
      // Functions (which may carry a toJSON) and bigints (which JSON.stringify refuses, unless
      // given a toJSON): the round trip's own rules.
      return NOT_PLAIN;
  }
}

function copyContainer(value: object, depth: number): unknown {
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return NOT_PLAIN;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (Array.isArray(value)) {
    if (prototype !== Array.prototype) return NOT_PLAIN;
    const items = value as unknown[];
    const copy: unknown[] = [];
    for (let i = 0; i < items.length; i++) {
      const item = plainCopy(items[i], depth);
      if (item === NOT_PLAIN) return NOT_PLAIN;
      copy.push(item === undefined ? null : item);
    }
    return copy;
  }
  if (prototype !== Object.prototype && prototype !== null) return NOT_PLAIN;
  const record = value as Record<string, unknown>;
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(record)) {
    if (key === '__proto__') return NOT_PLAIN;
    const member = plainCopy(record[key], depth);
    if (member === NOT_PLAIN) return NOT_PLAIN;
    if (member !== undefined) copy[key] = member;
  }
  return copy;
}
