import { AppError, positionFromString } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { EmbeddingProvider } from '@lore/platform/embeddings/port';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import type { ReadYourWrites } from '@lore/platform/cqrs';
import type { SealedFields } from '@lore/platform/crypto';
import type { ActiveMemory } from '@lore/memory/domain';
import type { MemoryContent } from './memory-content';
import { currentMemory, MEMORY_SEARCH_INDEX, memoryIndexName, memoryPoint, openOrNull, type IndexableMemory } from './memory-search-index.reactor';
import type { MemorySearchPositionDoc } from './memory-search-positions.projection';
import type { MemoryIndexWrites } from './memory-index-writes';

/** How long a catch-up waits for the index reactor's write in progress before the search waits as before. */
const WRITES_WAIT_MS = 2_000;

/**
 * A search's own catch-up: the caller's recent memory writes (RECENT_WRITES at most) put into the
 * index by the search itself, when the index's reactor lags behind other workspaces' writes. The
 * reactor embeds in log order, so a user's memory written behind another workspace's flood would
 * otherwise be searchable only once that flood is indexed: the user's searches waited and
 * answered 503, whatever the user did. The cost is the caller's own (a few embeddings, shared
 * fairly with the reactor's by the embedding batcher); the reactor later indexes the same
 * memories again, to the same points.
 *
 * Each memory is read from its stream (the log decides, not a read model that may lag): a live
 * one is embedded and written as it now is, an invalidated or deleted one loses its point. All of
 * it runs alone among the index's writers (`MemoryIndexWrites`), so whatever happens to these
 * memories meanwhile is written by the reactor after it: a deleted memory's point never comes
 * back after the reactor removed it and erasure purged it.
 *
 * Returns false when it cannot cover every pending write of the caller (more than it keeps, or
 * the index busy): the search then waits for the reactor, as before.
 */
export async function indexOwnPendingWrites(
  deps: {
    readonly events: EventStore;
    readonly vectors: VectorStore;
    readonly sealed: SealedFields<MemoryContent>;
    readonly readYourWrites: ReadYourWrites;
    readonly indexWrites: MemoryIndexWrites;
  },
  provider: EmbeddingProvider,
  partition: MemorySearchPositionDoc,
): Promise<boolean> {
  const { recent, truncated_at: truncatedAt = null } = partition;
  // A document from before v2 of the positions projection (during its rebuild) lists nothing.
  if (recent === undefined) return false;
  // The list covers every pending write only if the index has passed the last one it dropped.
  if (truncatedAt !== null && !(await hasIndexed(deps.readYourWrites, truncatedAt))) return false;
  const index = memoryIndexName(provider);
  await deps.vectors.ensureIndex({ name: index, dimensions: provider.info.dimensions, distance: 'cosine' });
  const caughtUp = async (): Promise<void> => {
    const read = await Promise.all(recent.map((write) => liveMemory(deps.events, write.id)));
    const toIndex: IndexableMemory[] = [];
    const gone: string[] = [];
    for (const [i, memory] of read.entries()) {
      const id = recent[i]?.id as string;
      const content = memory === null ? null : await openOrNull(deps.sealed, id, memory.content);
      if (memory === null || content === null) gone.push(id);
      else toIndex.push({ id, partition: partition.id, memoryType: memory.memoryType, content });
    }
    const vectors = await provider.embedDocuments(toIndex.map((m) => m.content.memory));
    const writes: VectorWrite[] = toIndex.flatMap((m, i): VectorWrite[] => {
      const vector = vectors[i];
      return vector === undefined ? [] : [{ op: 'upsert', index, points: [memoryPoint(m, vector)] }];
    });
    if (gone.length > 0) writes.push({ op: 'delete', index, ids: gone });
    if (writes.length > 0) await deps.vectors.write(writes);
  };
  return unlessUnavailable(deps.indexWrites.alone(caughtUp, WRITES_WAIT_MS));
}

/** Whether the index's reactor has passed `position` already (no waiting). */
function hasIndexed(readYourWrites: ReadYourWrites, position: string): Promise<boolean> {
  return unlessUnavailable(readYourWrites.settleReactor(MEMORY_SEARCH_INDEX, positionFromString(position), 0));
}

/** True once `work` succeeds, false when it answers 503 (a wait ran out, the index is busy); any other failure passes on. */
export function unlessUnavailable(work: Promise<unknown>): Promise<boolean> {
  return work.then(
    () => true,
    (error: unknown) => {
      if (error instanceof AppError && error.code === 'unavailable') return false;
      throw error;
    },
  );
}

/** A memory as its stream says it now is; null once deleted, erased or invalidated (nothing of it belongs in the index). */
async function liveMemory(events: EventStore, id: string): Promise<ActiveMemory | null> {
  const memory = await currentMemory(events, id);
  return memory === null || memory.superseded ? null : memory;
}
