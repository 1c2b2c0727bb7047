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

/**
 * A time-ordered UUID (version 7, RFC 9562: 48-bit millisecond time, then 74 random bits) for
 * a stored event. Event ids are a unique key of the event log; random ones (version 4) put each
 * event of a batch on a leaf page of their own in that index, one more page to write and fsync
 * per event (a group commit of 10 appends measured ~30% slower on SQLite), where time-ordered
 * ones land together at the end.
 */
export function newEventId(now: number = Date.now()): string {
  const hex = withRandomBytes(10, (bytes, start) => bytes.toString('hex', start, start + 10));
  const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  // Version 7 in the 13th digit; the variant (binary 10) in the top bits of the 17th.
  const variant = ((parseInt(hex.charAt(3), 16) & 0x3) | 0x8).toString(16);
  return `${time.slice(0, 8)}-${time.slice(8)}-7${hex.slice(0, 3)}-${variant}${hex.slice(4, 7)}-${hex.slice(8, 20)}`;
}
