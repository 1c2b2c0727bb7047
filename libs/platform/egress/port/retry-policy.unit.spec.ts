import { DEFAULT_RETRY_POLICY, backoffDelayMs, isRetryableStatus, nextDelayMs, retryAfterMs } from './retry-policy';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });
const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 1000, maxRetries: 3, maxRetryAfterMs: 5000 };

describe('retry policy', () => {
  it('retries 408, 409, 425, 429 and 5xx, not other 4xx', () => {
    expect([408, 409, 425, 429, 500, 502, 503, 504].every(isRetryableStatus)).toBe(true);
    expect([400, 401, 403, 404, 413, 422].some(isRetryableStatus)).toBe(false);
  });

  it('backs off exponentially with full jitter under a ceiling', () => {
    expect([0, 1, 2, 3, 10].map((retry) => backoffDelayMs(retry, policy, () => 0.999999))).toEqual([99, 199, 399, 799, 999]);
    expect(backoffDelayMs(5, policy, () => 0)).toBe(0);
  });

  it('reads Retry-After as seconds or an HTTP date, and retry-after-ms first', () => {
    expect(retryAfterMs(headers({ 'retry-after': '2' }))).toBe(2000);
    expect(retryAfterMs(headers({ 'retry-after': '0.5' }))).toBe(500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(retryAfterMs(headers({ 'retry-after': 'Wed, 01 Jan 2025 00:00:03 GMT' }), now)).toBe(3000);
    expect(retryAfterMs(headers({ 'retry-after': 'Tue, 31 Dec 2024 00:00:00 GMT' }), now)).toBe(0);
    expect(retryAfterMs(headers({ 'retry-after-ms': '250', 'retry-after': '9' }))).toBe(250);
    expect(retryAfterMs(headers({ 'retry-after': 'soon' }))).toBeUndefined();
    expect(retryAfterMs(headers({}))).toBeUndefined();
  });

  it('waits what the server asked (plus jitter), gives up past maxRetries or maxRetryAfterMs', () => {
    expect(nextDelayMs(0, policy, 2000, () => 0)).toBe(2000);
    expect(nextDelayMs(0, policy, 2000, () => 0.5)).toBe(2050);
    expect(nextDelayMs(0, policy, 6000)).toBeUndefined();
    expect(nextDelayMs(1, policy, undefined, () => 0.5)).toBe(100);
    expect(nextDelayMs(3, policy, undefined)).toBeUndefined();
  });
});
