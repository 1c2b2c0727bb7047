import { AppError } from '@lore/platform/kernel';
import type { ExpectedRevision } from './event-store.port';

/** The stream's revision was not the one the writer decided against. Maps to 409 if never resolved. */
export class WrongExpectedRevisionError extends AppError {
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    readonly actual: number | 'no_stream',
  ) {
    super('conflict', `stream ${streamId} was changed concurrently (expected ${String(expected)}, actual ${String(actual)})`);
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
