import type { SerializedError } from '@lore/platform/kernel';

import type { ExtractedText } from './extract-text';
import type { ExtractionLimits } from './extraction-limits';

/**
 * What the service and a reader process (extraction.worker.ts) say to each other over the IPC
 * channel, and how the service starts one. Kept apart from the reader so that the service
 * imports none of the reader's parsers.
 */
export interface ExtractionTask {
  /** Names the task in the process's replies. */
  readonly id: number;
  readonly fileName: string;
  readonly mimeType: string | null;
  readonly bytes: Uint8Array;
  readonly limits: ExtractionLimits;
}

/** An uploader's error comes back as a value: an AppError thrown in the reader would reach the service as a plain Error. */
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

/**
 * The reader's command line: a marker (the script runs its message loop only when started as a
 * reader, never because some other process happens to have an IPC channel) and the hard limit
 * its own watchdog enforces on one file.
 */
export const READER_MARKER = '--lore-extraction-reader';

export function readerArgs(hardLimitMs: number): string[] {
  return [READER_MARKER, String(hardLimitMs)];
}

/** The hard limit from the reader's command line, or null when this process is not a reader. */
export function readerHardLimitMs(argv: readonly string[]): number | null {
  const at = argv.indexOf(READER_MARKER);
  if (at < 0) return null;
  const ms = Number(argv[at + 1]);
  return Number.isFinite(ms) && ms > 0 ? ms : null;
}
