import { retryAfterSeconds } from './errors';

/** How the client retries: 429 always (the request was refused before any work), 503 and network failures only for requests that are safe to repeat. */
export interface RetryPolicy {
  /** Attempts after the first (0: never retry). */
  readonly maxRetries: number;
  /** First backoff delay; each next one doubles, with full jitter. */
  readonly baseDelayMs: number;
  /** Longest wait between attempts, `Retry-After` included: a longer `Retry-After` is not waited for and the error is returned. */
  readonly maxDelayMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 30_000 };

export type FetchFn = (request: Request) => Promise<Response>;

/**
 * A fetch that repeats a request while the API says to come back later. `idempotent` requests
 * (reads, searches, appends carrying a client id) are also repeated after a 503 or a network
 * failure; others are not, because a 503 may come after the write was stored (a
 * read-your-writes wait that ran out) and repeating it would write twice.
 */
export function retryingFetch(base: (request: Request) => Promise<Response>, policy: RetryPolicy, idempotent: boolean, sleep: (ms: number) => Promise<void> = defaultSleep): FetchFn {
  return async (request) => {
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= policy.maxRetries;
      let response: Response;
      try {
        // A clone per attempt: a body can be read once.
        response = await base(last ? request : request.clone());
      } catch (error) {
        if (last || !idempotent || request.signal.aborted) throw error;
        await sleep(backoff(policy, attempt));
        continue;
      }
      const retryable = response.status === 429 || (response.status === 503 && idempotent);
      if (last || !retryable) return response;
      const asked = retryAfterSeconds(response.headers);
      const delay = asked === undefined ? backoff(policy, attempt) : asked * 1000;
      if (delay > policy.maxDelayMs) return response;
      // The answer is dropped: its body must be consumed or cancelled to free the connection.
      await response.body?.cancel().catch(() => undefined);
      await sleep(delay);
    }
  };
}

/** Exponential backoff with full jitter (a random wait up to base × 2^attempt, capped). */
export function backoff(policy: RetryPolicy, attempt: number): number {
  return Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);
}

function defaultSleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
