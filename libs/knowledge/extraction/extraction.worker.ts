import { setPriority } from 'node:os';

import { AppError, type SerializedError } from '@lore/platform/kernel';

import { extractText, type ExtractedText } from './extract-text';
import type { ExtractionLimits } from './extraction-limits';

/**
 * The extraction pool's reader process (ExtractionProcesses), bundled on its own as
 * dist/extraction-worker.js by tools/build.mjs, and from the sources by `workerScript`
 * (libs/platform/kernel) under jest. It runs every reader of this folder in a process of its
 * own, so that a slow or hostile file blocks, or aborts, only that process.
 */
export interface ExtractionTask {
  /** Names the task in the process's replies. */
  readonly id: number;
  readonly fileName: string;
  readonly mimeType: string | null;
  readonly bytes: Uint8Array;
  readonly limits: ExtractionLimits;
}

/** An uploader's error comes back as a value: an AppError thrown here would reach the pool as a plain Error. */
export type ExtractionOutcome = { readonly ok: true; readonly extracted: ExtractedText } | { readonly ok: false; readonly error: SerializedError };

/**
 * What the process sends back for a task: `started` when it begins (the pool's deadline counts
 * from there, not from the wait in the queue), then its outcome, or the message of an error
 * that is not the uploader's (a bug: the pool rethrows it).
 */
export type ProcessReply =
  | { readonly id: number; readonly started: true }
  | { readonly id: number; readonly outcome: ExtractionOutcome }
  | { readonly id: number; readonly failure: string };

export async function extract(task: ExtractionTask): Promise<ExtractionOutcome> {
  try {
    return { ok: true, extracted: await extractText(task, task.limits) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation') return { ok: false, error: error.toJSON() };
    throw error;
  }
}

const send = (reply: ProcessReply): void => {
  process.send?.(reply);
};

if (process.send !== undefined) {
  process.on('message', (task: ExtractionTask) => {
    send({ id: task.id, started: true });
    extract(task).then(
      (outcome) => send({ id: task.id, outcome }),
      (error: unknown) => send({ id: task.id, failure: error instanceof Error ? error.message : String(error) }),
    );
  });
  // Ends with the service: a reader never outlives the process that started it.
  process.on('disconnect', () => process.exit(0));
  // Nice +10 once loaded (on Linux, pid 0 is this, the reading thread): the request thread gets the
  // CPU first. Not from the fork on: at low priority on a busy machine, starting a replacement
  // reader took seconds, all of it counted against the file that waited for it.
  try {
    setPriority(0, 10);
  } catch {
    // not permitted here (some containers): the reader runs at the service's priority
  }
}
