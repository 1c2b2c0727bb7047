/**
 * Typed failures that cross the transport and map to HTTP at the gateway.
 * `code` is the contract; `message` is safe to show to the caller.
 */
export type ErrorCode =
  | 'validation' // 422
  | 'failed_checks' // 400: a well-formed request that failed the checks of what it names (a connection against its catalog entry)
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404
  | 'conflict' // 409
  | 'too_large' // 413
  | 'rate_limited' // 429
  | 'unavailable' // 503
  | 'bad_gateway' // 502: a model provider Lore called (a rerank API) failed or answered nonsense
  | 'gateway_timeout' // 504: a model provider Lore called did not answer in time
  | 'internal'; // 500

export interface ValidationIssue {
  readonly loc: ReadonlyArray<string | number>;
  readonly msg: string;
  readonly type: string;
}

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly issues: readonly ValidationIssue[] = [],
    /** `failed_checks`: one message per failed check (SPEC §7's connection validation `errors`). */
    readonly checks: readonly string[] = [],
    /** `rate_limited`, `unavailable`: when trying again may succeed (the gateway's `Retry-After`). */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'AppError';
  }

  toJSON(): SerializedError {
    return {
      code: this.code,
      message: this.message,
      issues: this.issues,
      ...(this.checks.length > 0 ? { checks: this.checks } : {}),
      ...(this.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: this.retryAfterSeconds }),
    };
  }

  static from(serialized: SerializedError): AppError {
    return new AppError(serialized.code, serialized.message, serialized.issues ?? [], serialized.checks ?? [], serialized.retryAfterSeconds);
  }
}

export interface SerializedError {
  readonly code: ErrorCode;
  readonly message: string;
  readonly issues?: readonly ValidationIssue[];
  readonly checks?: readonly string[];
  readonly retryAfterSeconds?: number;
}

export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const forbidden = (why: string): AppError => new AppError('forbidden', why);
export const conflict = (why: string): AppError => new AppError('conflict', why);
export const unavailable = (why: string): AppError => new AppError('unavailable', why);
/** 400 `{"detail": {"message", "errors"}}`: every failed check listed at once. */
export const failedChecks = (message: string, checks: readonly string[]): AppError => new AppError('failed_checks', message, [], checks);
export const invalid = (loc: ReadonlyArray<string | number>, msg: string, type = 'value_error'): AppError =>
  new AppError('validation', msg, [{ loc, msg, type }]);
