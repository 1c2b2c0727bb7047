/** When and how long to wait before retrying an HTTP call (pure; the adapter does the waiting). */

export interface RetryPolicy {
  /** Retries after the first attempt (default 4: five attempts in all). */
  readonly maxRetries: number;
  /** First backoff ceiling; doubles each retry (default 500 ms). */
  readonly baseDelayMs: number;
  /** Backoff ceiling (default 20 s). */
  readonly maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails at once (default 60 s). */
  readonly maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 20_000,
  maxRetryAfterMs: 60_000,
};

/** 408, 409 (OpenAI: a conflicting concurrent update), 425, 429 and every 5xx are worth another try. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/** "Full jitter": a uniform delay in [0, min(maxDelay, base · 2^retry)], retry counted from 0. */
export function backoffDelayMs(retry: number, policy: RetryPolicy, random: () => number = Math.random): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** retry);
  return Math.floor(random() * ceiling);
}

/**
 * The wait a server asked for: `retry-after-ms` (Azure OpenAI, milliseconds) or `Retry-After`
 * (seconds, or an HTTP date); undefined when absent or unreadable.
 */
export function retryAfterMs(headers: { get(name: string): string | null }, now: number = Date.now()): number | undefined {
  const ms = headers.get('retry-after-ms');
  if (ms !== null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * How long to wait before retry number `retry` (0-based), or undefined to give up: the server's
 * Retry-After when it sent one (plus a little jitter, so that callers it throttled together do
 * not return together), else the backoff.
 */
export function nextDelayMs(
  retry: number,
  policy: RetryPolicy,
  serverWaitMs: number | undefined,
  random: () => number = Math.random,
): number | undefined {
  if (retry >= policy.maxRetries) return undefined;
  if (serverWaitMs !== undefined) {
    if (serverWaitMs > policy.maxRetryAfterMs) return undefined;
    return serverWaitMs + Math.floor(random() * Math.min(1000, policy.baseDelayMs));
  }
  return backoffDelayMs(retry, policy, random);
}
