import type { ContextLog } from '@lore/platform/cqrs';

/**
 * A repair job run in the background: once shortly after start, then every `everyMs`. It
 * answers how many things it repaired (logged as a warning: repairs mean something was cut
 * off); a failure is logged and the next run tries again. Stopping waits for a run in progress.
 */
export function periodicTask(task: {
  readonly name: string;
  readonly firstAfterMs: number;
  readonly everyMs: number;
  readonly log: ContextLog;
  readonly run: () => Promise<number>;
}): { start(): Promise<void>; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = task.run().then(
      (repaired) => {
        if (repaired > 0) task.log.warn({ repaired }, `${task.name}: repaired what an interruption left behind`);
      },
      (error: unknown) => task.log.error({ err: error instanceof Error ? error.message : String(error) }, `${task.name} failed; it runs again later`),
    );
  };
  const schedule = (ms: number): void => {
    timer = setTimeout(() => {
      tick();
      schedule(task.everyMs);
    }, ms);
    timer.unref();
  };
  return {
    async start() {
      schedule(task.firstAfterMs);
    },
    async stop() {
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
