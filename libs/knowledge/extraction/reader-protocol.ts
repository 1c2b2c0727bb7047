import type { SerializedError } from '@lore/platform/kernel';

import type { ExtractedText } from './extract-text';
import type { ExtractionLimits } from './extraction-limits';

/**
 * What the service and a reader process (extraction.worker.ts) say to each other, as JSON lines
 * over the reader's fd 3 (JsonLines), and how the service starts one. Kept apart from the reader
 * so that the service imports none of the reader's parsers.
 */
export interface ExtractionTask {
  /** Names the task in the process's replies. */
  readonly id: number;
  readonly fileName: string;
  readonly mimeType: string | null;
  readonly bytes: Uint8Array;
  readonly limits: ExtractionLimits;
}

/**
 * How a task crosses to the reader: its header (the task without its bytes, and their size),
 * then its bytes in chunks of at most CHUNK_BYTES (base64), each sent once the one before is
 * written. Serialising a message is synchronous: a 20 MB file in one message held the service's
 * event loop for ~11 ms (measured here), a chunk holds it for well under one.
 */
export type TaskHeader = Omit<ExtractionTask, 'bytes'> & { readonly size: number };
export interface TaskChunk {
  readonly id: number;
  /** Base64. */
  readonly chunk: string;
}
export type TaskMessage = TaskHeader | TaskChunk;
export const CHUNK_BYTES = 256 * 1024;
/**
 * The extracted text comes back in pieces of exactly this many characters, but the last (which
 * may be shorter, and is then followed only by the outcome). Each is a line holding nothing but
 * a JSON string: parsing one costs what copying it does, whatever a reader put in it.
 */
export const TEXT_PIECE_CHARS = 512 * 1024;
/**
 * The longest line holding a text piece: every character escaped by JSON.stringify (`\u0001`,
 * six characters), and the quotes.
 */
export const MAX_PIECE_LINE_CHARS = 6 * TEXT_PIECE_CHARS + 2;
/**
 * The longest line from a reader holding anything but a text piece: an outcome (its error
 * messages cut to MAX_ERROR_CHARS, its title to MAX_TITLE_CHARS), `started`, `ready`. A line of
 * nested arrays or objects costs far more to parse than its length suggests (1.6 M of them, in
 * a line the length of a text piece, held the service's event loop ~300 ms): such lines are kept
 * short. The reader, which trusts the service, takes lines up to MAX_PIECE_LINE_CHARS.
 */
export const MAX_REPLY_LINE_CHARS = 64 * 1024;
/** A reader's error messages are cut to this (they name the file, whose name the upload chose). */
export const MAX_ERROR_CHARS = 4096;

/** An uploader's error comes back as a value: an AppError thrown in the reader would reach the service as a plain Error. */
export type ExtractionOutcome = { readonly ok: true; readonly extracted: ExtractedText } | { readonly ok: false; readonly error: SerializedError };
/** The outcome as it crosses: its text went before it, in pieces. */
export type ReaderOutcome = { readonly ok: true; readonly extracted: Omit<ExtractedText, 'text'> } | { readonly ok: false; readonly error: SerializedError };

/**
 * What the process sends (each checked by the service, reader-replies.ts): `ready` once loaded
 * (the service then lowers its threads' priority); for a task, `started` when it begins (the
 * pool's deadline counts from there, not from the wait in the queue), then its text in pieces
 * (TEXT_PIECE_CHARS) and its outcome, or the message of an error that is not the uploader's (a
 * bug: the pool rethrows it).
 */
export type ProcessReply =
  | { readonly ready: true }
  | { readonly id: number; readonly started: true }
  | string
  | { readonly id: number; readonly outcome: ReaderOutcome }
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
