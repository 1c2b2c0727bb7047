import { AppError } from '@lore/platform/kernel';
import type { ExpectedRevision } from './event-store.port';

/**
 * The stream's revision was not the one the writer decided against. Maps to 409 if never
 * resolved. The fields carry the details for logs and retries; the message is shown to
 * callers, so it names no stream, revision or other internals (the command handler replaces
 * it with one in the caller's terms).
 */
export class WrongExpectedRevisionError extends AppError {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super('conflict', 'This was changed by another request at the same time; retry.');
    this.name = 'WrongExpectedRevisionError';
  }
}

/** The stream was permanently deleted; it can never be written again. */
export class StreamDeletedError extends AppError {
  constructor(readonly streamId: string) {
    super('not_found', `stream ${streamId} was deleted`);
    this.name = 'StreamDeletedError';
  }
}
