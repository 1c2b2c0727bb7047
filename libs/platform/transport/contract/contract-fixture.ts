import { randomBytes } from 'node:crypto';
import type { Transport } from '@lore/platform/transport/port';

export interface TransportFixture {
  readonly transport: Transport;
  cleanup(): Promise<void>;
}

export type TransportFactory = () => Promise<TransportFixture>;

/** Unique per test, so suites can share one real server and leftovers never cross tests. */
export function uniqueSubject(name: string): string {
  return `lore-contract.${randomBytes(6).toString('hex')}.${name}`;
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Collects values delivered asynchronously and lets a test wait for a count of them. */
export class Inbox<T> {
  readonly items: T[] = [];
  private waiters: Array<{ count: number; resolve: () => void }> = [];

  push(item: T): void {
    this.items.push(item);
    this.waiters = this.waiters.filter((waiter) => {
      if (this.items.length < waiter.count) return true;
      waiter.resolve();
      return false;
    });
  }

  async waitFor(count: number, timeoutMs = 5_000): Promise<T[]> {
    if (this.items.length < count) {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`expected ${count} deliveries within ${timeoutMs} ms, got ${this.items.length}`)),
          timeoutMs,
        );
        this.waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    }
    return this.items;
  }
}
