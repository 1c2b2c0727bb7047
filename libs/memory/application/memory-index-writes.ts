import { unavailable } from '@lore/platform/kernel';

/**
 * One writer of the memory search index at a time, in this process: the index reactor's writes,
 * and a search's catch-up from reading its caller's memories to writing their points. So a
 * catch-up never writes a point after the reactor has removed it: a deletion (or any newer
 * event) that comes while a catch-up runs is written by the reactor after the catch-up's
 * write, and the erasure, which waits for the reactor to pass the deletion, purges after both.
 * A crash between the two leaves the reactor before the deletion, which it applies on restart.
 */
export class MemoryIndexWrites {
  private tail: Promise<void> = Promise.resolve();

  /** Runs `work` alone; gives up with 503 when the index is still busy after `waitMs` (work not started). */
  async alone<T>(work: () => Promise<T>, waitMs = Infinity): Promise<T> {
    const before = this.tail;
    let done!: () => void;
    this.tail = new Promise<void>((resolve) => (done = resolve));
    try {
      if (await settledWithin(before, waitMs)) return await work();
      throw unavailable('the memory search index is busy with other writes; retry the search');
    } finally {
      // The next writer goes after this one (and after `before`, should this one have given up waiting).
      void before.then(done);
    }
  }
}

async function settledWithin(promise: Promise<void>, ms: number): Promise<boolean> {
  if (ms === Infinity) {
    await promise;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
  } finally {
    clearTimeout(timer);
  }
}
