import { AppError, type ErrorCode } from '@lore/platform/kernel';
import { StreamDeletedError, WrongExpectedRevisionError, type AppendResult, type ExpectedRevision } from '@lore/platform/event-store/port';
import type { AppendOutcome, AppendRequest } from './sqlite-append-writer';

/** A stream deletion's steps (sqlite-stream-deletion.ts), each a request of its own so that appends get in between. */
export type DeletionStep =
  | { readonly op: 'tombstone'; readonly streamId: string; readonly deletedAt: string }
  | { readonly op: 'delete-page'; readonly streamId: string }
  | { readonly op: 'truncate-wal' };

/** What the event store's writer thread is asked (append-writer.worker.ts), each with a reply; `handle` names one store's connection. */
export type WriterRequest =
  | { readonly op: 'open'; readonly handle: number; readonly path: string }
  | { readonly op: 'append'; readonly handle: number; readonly batch: readonly AppendRequest[]; readonly recordedAt: string }
  | (DeletionStep & { readonly handle: number })
  | { readonly op: 'close'; readonly handle: number };

export type WriterReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: WireError };

/** An outcome as it crosses the thread boundary: errors as data, rebuilt as the same classes. */
export type WireOutcome = { readonly ok: true; readonly result: AppendResult; readonly appended: number } | { readonly ok: false; readonly error: WireError };

/**
 * An error as data: a structured clone keeps an Error's message but not its class, and callers
 * tell a conflict from a deleted stream from a busy database by class and code.
 */
export type WireError =
  | { readonly kind: 'wrong-revision'; readonly streamId: string; readonly expected: ExpectedRevision; readonly actual: number | 'no_stream' }
  | { readonly kind: 'stream-deleted'; readonly streamId: string }
  | { readonly kind: 'app'; readonly code: ErrorCode; readonly message: string }
  | { readonly kind: 'error'; readonly name: string; readonly message: string; readonly code?: string };

export function toWireError(error: unknown): WireError {
  if (error instanceof WrongExpectedRevisionError) return { kind: 'wrong-revision', streamId: error.streamId, expected: error.expected, actual: error.actual };
  if (error instanceof StreamDeletedError) return { kind: 'stream-deleted', streamId: error.streamId };
  if (error instanceof AppError) return { kind: 'app', code: error.code, message: error.message };
  const e = error instanceof Error ? error : new Error(String(error));
  const code = (e as { code?: unknown }).code;
  return { kind: 'error', name: e.name, message: e.message, ...(typeof code === 'string' ? { code } : {}) };
}

export function fromWireError(wire: WireError): Error {
  switch (wire.kind) {
    case 'wrong-revision':
      return new WrongExpectedRevisionError(wire.streamId, wire.expected, wire.actual);
    case 'stream-deleted':
      return new StreamDeletedError(wire.streamId);
    case 'app':
      return new AppError(wire.code, wire.message);
    case 'error':
      // SQLite's errors keep their name (SqliteError) and code (SQLITE_BUSY, …).
      return Object.assign(new Error(wire.message), { name: wire.name, ...(wire.code === undefined ? {} : { code: wire.code }) });
  }
}

export function toWireOutcome(outcome: AppendOutcome): WireOutcome {
  return outcome.ok ? outcome : { ok: false, error: toWireError(outcome.error) };
}

export function fromWireOutcome(outcome: WireOutcome): AppendOutcome {
  return outcome.ok ? outcome : { ok: false, error: fromWireError(outcome.error) };
}
