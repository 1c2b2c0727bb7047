import { randomFillSync } from 'node:crypto';

/**
 * Cryptographically random bytes drawn from the CSPRNG ahead, a few KiB at a time (as
 * `crypto.randomUUID` does): every write makes ids and IVs, and a `randomBytes` call per
 * 12 or 16 bytes cost more than the rest of making the id. Each byte is handed out once.
 */
const POOL_BYTES = 4096;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let next = POOL_BYTES;

/** Where `count` unused random bytes start in `pool` (refilled when too few are left). */
function take(count: number): number {
  if (count > POOL_BYTES) throw new RangeError(`at most ${POOL_BYTES} random bytes at a time`);
  if (next + count > POOL_BYTES) {
    randomFillSync(pool);
    next = 0;
  }
  const start = next;
  next += count;
  return start;
}

/** `count` fresh random bytes, the caller's to keep. */
export function randomPoolBytes(count: number): Buffer {
  const start = take(count);
  return Buffer.from(pool.subarray(start, start + count));
}

/** Calls `read` with `count` fresh random bytes, valid only during the call (no copy is made). */
export function withRandomBytes<T>(count: number, read: (bytes: Buffer, start: number) => T): T {
  return read(pool, take(count));
}
