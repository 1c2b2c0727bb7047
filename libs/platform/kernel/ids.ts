import { withRandomBytes } from './random-pool';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

/**
 * Time-ordered ids (48-bit millisecond time + 80 random bits, base32, 26 chars) with a
 * prefix naming the kind, e.g. `mem_01j...`. Sorting ids sorts by creation time, which
 * keeps B-tree inserts local and makes ids usable as tie-breakers in cursors.
 */
export function newId(prefix: string, now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const rand = withRandomBytes(16, (bytes, start) => {
    let text = '';
    for (let i = start; i < start + 16; i++) text += ALPHABET[(bytes[i] ?? 0) % 32];
    return text;
  });
  return `${prefix}_${time}${rand}`;
}

export function newUuid(): string {
  return globalThis.crypto.randomUUID();
}
