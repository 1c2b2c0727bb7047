/**
 * CommonJS for the start of a model worker's source (the embedding and cross-encoder workers):
 * puts the thread below the event loop's priority (Linux: a thread's own nice value, set through
 * its id, from `workerData.nice`). The model's runs are background work that would otherwise take
 * the cores from the requests and projections of the main thread as often as they get them
 * (several workers keep every core busy). Expects `workerData` in scope.
 */
export const LOWER_WORKER_PRIORITY_SOURCE = String.raw`
try {
  const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  if (workerData.nice > 0 && Number.isInteger(tid)) require('node:os').setPriority(tid, workerData.nice);
} catch {
  // Not Linux, or not allowed: the same priority as the rest of the process.
}
`;
