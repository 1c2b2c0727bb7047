/**
 * `work`'s result as a settled promise, its throw as a rejected one: synchronous work behind
 * an async port (the embedded stores) in one promise. An `async` function returning
 * `Promise.resolve(…)` makes two and a thenable job, and on Node 20 every promise also runs
 * AsyncLocalStorage's hooks: on the write path, where a projection reads and writes a few
 * documents per event, that was a dozen promises an event.
 */
export function settled<T>(work: () => T): Promise<T> {
  try {
    return Promise.resolve(work());
  } catch (error) {
    return Promise.reject(error);
  }
}
