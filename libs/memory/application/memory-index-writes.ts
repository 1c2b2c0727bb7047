import { comparePositions, unavailable, type Position } from '@lore/platform/kernel';
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
 * reactor drops their points from whatever it read before (`withoutErased`), until it has
 * passed their deletions (`passed`): a batch read after that cannot hold their events, which
 * erasure deletes from the log. After a crash nothing is in flight and the log has no such
 * events left (or, if the crash came before their streams went, erasure runs again).
 */
export class MemoryIndexWrites {
  private tail: Promise<void> = Promise.resolve();
  /** Erased memories the reactor has not passed the deletion of: id → the deletion's position. */
  private readonly erased = new Map<string, Position>();

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
  forget(deletions: ReadonlyMap<string, Position>): void {
    for (const [id, position] of deletions) this.erased.set(id, position);
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

  /** The reactor has handled every event up to `position`: erasures at or before it need no guard any more. */
  passed(position: Position): void {
    for (const [id, deletion] of this.erased) if (comparePositions(deletion, position) <= 0) this.erased.delete(id);
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
