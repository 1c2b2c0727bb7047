import { createHash } from 'node:crypto';

/**
 * A fixed-length key for identifiers that come from callers (user ids, workspace ids, JWT
 * subjects): `<prefix>_` and 43 characters of base64url SHA-256 over the parts. Stores limit
 * the length and alphabet of their keys, names and partitions (the vector store's ids are at
 * most 256 characters, subjects and stream names have their own limits); an id that a caller
 * chose, spliced in as it is, can exceed one, and a write the store refuses then fails
 * forever. The parts are JSON-encoded as an array first, so that no two different part lists
 * give the same input (`a/b` + `c` and `a` + `b/c` differ).
 */
export function boundedKey(prefix: string, ...parts: readonly string[]): string {
  return `${prefix}_${createHash('sha256').update(JSON.stringify(parts)).digest('base64url')}`;
}
