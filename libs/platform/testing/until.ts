/**
 * Polls `probe` every 50 ms until `done` holds for its value, which it returns; throws with the
 * last value seen once `timeoutMs` passes (for tests of background work: processing, erasure).
 */
export async function until<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 300)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
