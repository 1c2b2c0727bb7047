import { unavailable } from '@lore/platform/kernel';
import type { VectorWrite } from '@lore/platform/vectors/port';

/**
 * One writer of the memory search index at a time, in this process: the index reactor's writes,
 * a search's catch-up from reading its caller's memories to writing their points, and erasure
 * removing an erased memory's point. So a catch-up never writes a point after it was removed: a
 * deletion (or any newer event) that comes while a catch-up runs is written after the catch-up's
 * write, and the catch-up reads each memory from its stream, where the deletion stands first.
 *
 * The reactor alone writes from events it read earlier (a creation carries the text it indexes),
 * and it may lag far behind other workspaces' embeddings. Erasure does not wait for it: it
 * removes the erased memories' points itself and records them as erased (`forget`), and the
 * reactor skips them in whatever it read before (`isErased`, `withoutErased`). A record goes
 * once erasure has shredded the memories' keys (`erasureDone`) and a reactor batch has started
 * since: that batch, and every later one, can neither read their events (their streams are
 * deleted) nor open their texts. After a crash nothing is in flight, and erasure runs again if
 * it had not finished.
 */
export class MemoryIndexWrites {
  private tail: Promise<void> = Promise.resolve();
  /** Erased memories → null until their keys are gone, then the number of reactor batches started by that time. */
  private readonly erased = new Map<string, number | null>();
  private batchesStarted = 0;

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

  /** Erasure's record of memories whose points it removed (call it inside `alone`, with the removal). */
  forget(memoryIds: Iterable<string>): void {
    for (const id of memoryIds) this.erased.set(id, null);
  }

  /** Erasure has shredded the keys of every memory it recorded so far. */
  erasureDone(): void {
    for (const [id, since] of this.erased) if (since === null) this.erased.set(id, this.batchesStarted);
  }

  /** The reactor starts a batch: records that no batch from now on can write are dropped. */
  batchStarted(): void {
    this.batchesStarted += 1;
    for (const [id, since] of this.erased) if (since !== null && since < this.batchesStarted) this.erased.delete(id);
  }

  isErased(memoryId: string): boolean {
    return this.erased.has(memoryId);
  }

  /** `writes` less the points of erased memories (the reactor's, inside `alone`). */
  withoutErased(writes: readonly VectorWrite[]): VectorWrite[] {
    if (this.erased.size === 0) return [...writes];
    return writes.flatMap((write): VectorWrite[] => {
      if (write.op !== 'upsert') return [write];
      const points = write.points.filter((point) => !this.erased.has(point.id));
      return points.length === 0 ? [] : [{ ...write, points }];
    });
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
