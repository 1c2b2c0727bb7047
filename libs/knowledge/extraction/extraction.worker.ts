import { parentPort } from 'node:worker_threads';

import { AppError, type SerializedError } from '@lore/platform/kernel';

import { extractText, type ExtractedText } from './extract-text';
import type { ExtractionLimits } from './extraction-limits';

/**
 * The extraction pool's worker (a Piscina task handler), bundled on its own as
 * dist/extraction-worker.js by tools/build.mjs, and from the sources by
 * `workerScript` (libs/platform/kernel) under jest. It runs every reader of this folder in a worker
 * thread, so that a slow or hostile file blocks this thread only.
 */
export interface ExtractionTask {
  /** Names the task in the `started` message. */
  readonly id: number;
  readonly fileName: string;
  readonly mimeType: string | null;
  readonly bytes: Uint8Array;
  readonly limits: ExtractionLimits;
}

/** An uploader's error comes back as a value: an AppError thrown here would reach the pool as a plain Error. */
export type ExtractionOutcome = { readonly ok: true; readonly extracted: ExtractedText } | { readonly ok: false; readonly error: SerializedError };

/** Posted when a worker begins a task: the pool's deadline counts from here, not from the wait in the queue. */
export interface TaskStarted {
  readonly started: number;
}

export default async function extract(task: ExtractionTask): Promise<ExtractionOutcome> {
  const started: TaskStarted = { started: task.id };
  parentPort?.postMessage(started);
  try {
    return { ok: true, extracted: await extractText(task, task.limits) };
  } catch (error) {
    if (error instanceof AppError && error.code === 'validation') return { ok: false, error: error.toJSON() };
    throw error;
  }
}
