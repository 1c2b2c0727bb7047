import { Worker } from 'node:worker_threads';

/** How often the watchdog looks: a reader outlives a dead service by at most about this. */
const POLL_MS = 250;

// Plain JavaScript, run with `eval`: the watchdog must not depend on the bundle's layout.
// `process.kill` of its own pid from a thread ends the whole process, whatever the main thread
// is doing; `process.ppid` is read afresh on every call (a reader whose parent dies is
// re-parented, so the value changes). Time is the monotonic clock (hrtime, the same in every
// thread), not the wall clock, which can be stepped.
const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
const busySince = new BigInt64Array(workerData.shared);
const limitNs = BigInt(workerData.hardLimitMs) * 1000000n;
const end = () => process.kill(process.pid, 'SIGKILL');
setInterval(() => {
  if (process.ppid !== workerData.parent) end();
  const since = Atomics.load(busySince, 0);
  if (since > 0n && process.hrtime.bigint() - since > limitNs) end();
}, ${POLL_MS});
`;

export interface ReaderWatchdog {
  /** A file is being read from now on: the hard limit counts from here. */
  busy(): void;
  idle(): void;
}

/**
 * A thread in the reader process that ends the process (SIGKILL) when its parent is gone, or
 * when one file has been read for longer than `hardLimitMs`. The reader's main thread cannot do
 * either: it is inside a parser, synchronously, for as long as a file takes. The service kills a
 * reader at the file's deadline itself; this covers a service that can no longer do so (killed
 * with SIGKILL, aborted, or its event loop blocked), so a reader never runs on without bound.
 */
export function startReaderWatchdog(hardLimitMs: number): ReaderWatchdog {
  const shared = new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT);
  const busySince = new BigInt64Array(shared);
  const worker = new Worker(WATCHDOG_SOURCE, {
    eval: true,
    workerData: { shared, parent: process.ppid, hardLimitMs },
    resourceLimits: { maxOldGenerationSizeMb: 8, maxYoungGenerationSizeMb: 2 },
  });
  // The watchdog never keeps the reader alive: an idle reader still exits when its parent disconnects.
  worker.unref();
  // A reader without its watchdog could outlive the service: it ends instead (its file, if any, gets 422).
  worker.on('error', () => process.exit(1));
  return {
    busy: () => {
      Atomics.store(busySince, 0, process.hrtime.bigint());
    },
    idle: () => {
      Atomics.store(busySince, 0, 0n);
    },
  };
}
