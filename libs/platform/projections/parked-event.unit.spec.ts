import { AppError } from '@lore/platform/kernel';
import { describeError, isTransientFailure, MAX_PARKED_ERROR_CHARS } from './parked-event';

describe('isTransientFailure', () => {
  it.each([
    ['a store that is away', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6333'), { code: 'ECONNREFUSED' })],
    ['fetch failing on a socket (the cause)', new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) })],
    ['a busy SQLite database', Object.assign(new Error('database is locked'), { code: 'SQLITE_BUSY_SNAPSHOT' })],
    ['a 503 of ours', new AppError('unavailable', 'did not answer')],
    ['a MongoDB network error', Object.assign(new Error('connection closed'), { name: 'MongoNetworkError' })],
    ['an error that says it is retryable', Object.assign(new AppError('validation', 'busy model'), { retryable: true })],
  ])('retries the runner for %s', (_what, error) => {
    expect(isTransientFailure(error)).toBe(true);
  });

  it.each([
    ['a handler bug', new TypeError("Cannot read properties of undefined (reading 'memoryId')")],
    ['a refusal by a store', Object.assign(new Error('string or blob too big'), { code: 'SQLITE_TOOBIG' })],
    ['a 422 of ours', new AppError('validation', 'too long')],
    ['an unavailable error that says it will not get better', Object.assign(new AppError('unavailable', 'model missing'), { retryable: false })],
    ['a thrown string', 'boom'],
  ])('parks for %s', (_what, error) => {
    expect(isTransientFailure(error)).toBe(false);
  });
});

describe('describeError', () => {
  it("keeps only the error's name and message, truncated", () => {
    expect(describeError(new RangeError('too long'))).toBe('RangeError: too long');
    expect(describeError(new Error('x'.repeat(2_000)))).toHaveLength(MAX_PARKED_ERROR_CHARS);
    expect(describeError({ secret: 'user text' })).toBe('non-error value thrown');
  });
});
