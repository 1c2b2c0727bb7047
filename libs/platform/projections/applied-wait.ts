import type { Position } from '@lore/platform/kernel';

/** One runner's part of a read-your-writes wait; the runner resolves or rejects it as it moves on. */
export interface Waiter {
  readonly position: Position;
  /** The streams the waiting write touched: parking one of them rejects the wait. */
  readonly streams: readonly string[];
  readonly resolve: () => void;
  readonly reject: (error: Error) => void;
}

/** What a wait needs of a processor runner (ProjectionRunner). */
export interface WaitableRunner {
  /** Whether `position` is applied; throws (503) when waiting could only end in the timeout. */
  hasApplied(position: Position, streams: readonly string[]): boolean;
  addWaiter(waiter: Waiter): void;
  dropWaiter(waiter: Waiter): void;
  /** The 503 for a wait that ran out of time on this runner. */
  lateError(timeoutMs: number): Error;
}

/**
 * Resolves once every runner has applied `position`; rejects at the first refusal, or when
 * `timeoutMs` runs out (naming the first runner still behind). One promise and one timer for
 * all the runners, and none when every one has applied it already: every write waits like
 * this (read-your-writes), and a promise and a timer per runner showed in profiles.
 */
export function waitUntilApplied(runners: readonly WaitableRunner[], position: Position, timeoutMs: number, streams: readonly string[] = []): Promise<void> {
  let behind: WaitableRunner[];
  try {
    behind = runners.filter((runner) => !runner.hasApplied(position, streams));
  } catch (error) {
    return Promise.reject(error);
  }
  if (behind.length === 0) return Promise.resolve();
  return new Promise<void>((resolve, reject) => {
    const waiting = new Map<WaitableRunner, Waiter>();
    const timer = setTimeout(() => {
      const [late] = waiting.keys();
      giveUp();
      reject(late === undefined ? new Error('wait timed out') : late.lateError(timeoutMs));
    }, timeoutMs);
    const giveUp = (): void => {
      clearTimeout(timer);
      for (const [runner, waiter] of waiting) runner.dropWaiter(waiter);
      waiting.clear();
    };
    for (const runner of behind) {
      const waiter: Waiter = {
        position,
        streams,
        resolve: () => {
          waiting.delete(runner);
          if (waiting.size > 0) return;
          clearTimeout(timer);
          resolve();
        },
        reject: (error) => {
          waiting.delete(runner);
          giveUp();
          reject(error);
        },
      };
      waiting.set(runner, waiter);
      runner.addWaiter(waiter);
    }
  });
}
