import type { ContextLog } from './context-definition';

/**
 * A job run in the background: once shortly after start, then every `everyMs`. A repair job
 * answers how many things it repaired (logged as a warning: repairs mean something was cut
 * off; `routine` jobs, whose work is expected, are not logged); a failure is logged and the
 * next run tries again. Stopping waits for a run in progress.
 */
export function periodicTask(task: {
  readonly name: string;
  readonly firstAfterMs: number;
  readonly everyMs: number;
  readonly log: ContextLog;
  readonly run: () => Promise<number>;
  readonly routine?: boolean;
}): { start(): Promise<void>; stop(): Promise<void> } {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const tick = (): void => {
    running = task.run().then(
      (repaired) => {
        if (repaired > 0 && task.routine !== true) task.log.warn({ repaired }, `${task.name}: repaired what an interruption left behind`);
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
