import { randomBytes, randomUUID } from 'node:crypto';
import type { EventToAppend } from '@lore/platform/event-store/port';

/** A name no other test (or earlier run against the same server) has used. */
export function uniqueName(prefix: string): string {
  return `${prefix}${randomBytes(6).toString('hex')}`;
}

let counter = 0;

/** `count` distinct events; `n` in the data lets tests check order across appends. */
export function eventsOf(count: number, type = 'test.Happened'): EventToAppend[] {
  return Array.from({ length: count }, () => ({ id: randomUUID(), type, data: { n: counter++ } }));
}

/** Polls until `check` passes (it throws or returns false otherwise), or fails with its last error. */
export async function eventually(check: () => boolean | void, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      if (check() !== false) return;
      lastError = new Error('condition still false');
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) throw lastError;
    await sleep(10);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
