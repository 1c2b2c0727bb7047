import { positionFromString } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { EmbeddingProvider } from '@lore/platform/embeddings/port';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import type { ReadYourWrites } from '@lore/platform/cqrs';
import type { SealedFields } from '@lore/platform/crypto';
import { memoryDecider, memoryStreamId, upcastMemoryEvent, type ActiveMemory } from '@lore/memory/domain';
import type { MemoryContent } from './memory-content';
import { MEMORY_SEARCH_INDEX, memoryIndexName, memoryPoint, openOrNull, type IndexableMemory } from './memory-search-index.reactor';
import type { MemorySearchPositionDoc } from './memory-search-positions.projection';

/** Times a memory changed under a search indexing it before the search leaves it to the index's reactor. */
const ATTEMPTS = 3;

/**
 * A search's own catch-up: the caller's recent memory writes (RECENT_WRITES at most) put into the
 * index by the search itself, when the index's reactor lags behind other workspaces' writes. The
 * reactor embeds in log order, so a user's memory written behind another workspace's flood would
 * otherwise be searchable only once that flood is indexed: the user's searches waited and
 * answered 503, whatever the user did. The cost is the caller's own (a few embeddings, shared
 * fairly with the reactor's by the embedding batcher); the reactor later indexes the same
 * memories again, to the same points.
 *
 * Each memory is read from its stream (the log decides, not a read model that may lag), and
 * checked there again once its point is written: a memory changed meanwhile is indexed again as
 * it now is, and one deleted meanwhile loses its point and has the deleted points purged, so
 * the search never leaves a deleted memory's text in the index's files (erasure, which purges
 * the reactor's deletions, may already have run).
 *
 * Returns false when it cannot cover every pending write of the caller (more than it keeps, or a
 * memory that kept changing): the search then waits for the reactor, as before.
 */
export async function indexOwnPendingWrites(
  deps: {
    readonly events: EventStore;
    readonly vectors: VectorStore;
    readonly sealed: SealedFields<MemoryContent>;
    readonly readYourWrites: ReadYourWrites;
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
  let pending = recent.map((write) => write.id);
  for (let attempt = 0; attempt < ATTEMPTS && pending.length > 0; attempt++) {
    const read = await Promise.all(pending.map((id) => folded(deps.events, id)));
    const toIndex: (IndexableMemory & { readonly revision: number })[] = [];
    for (const memory of read) {
      // Deleted, erased or invalidated: the search reads only live memories from the read model, so there is nothing to add.
      if (memory.state === null || memory.state.superseded) continue;
      const content = await openOrNull(deps.sealed, memory.id, memory.state.content);
      if (content !== null) toIndex.push({ id: memory.id, partition: partition.id, memoryType: memory.state.memoryType, content, revision: memory.revision });
    }
    if (toIndex.length === 0) return true;
    const vectors = await provider.embedDocuments(toIndex.map((m) => m.content.memory));
    await deps.vectors.write(toIndex.flatMap((m, i): VectorWrite[] => {
      const vector = vectors[i];
      return vector === undefined ? [] : [{ op: 'upsert', index, points: [memoryPoint(m, vector)] }];
    }));
    // What changed meanwhile: a deleted one loses the point just written (and its bytes); a changed one is indexed again.
    const after = await Promise.all(toIndex.map(async (m) => ({ written: m, now: await folded(deps.events, m.id) })));
    const gone = after.filter(({ now }) => now.state === null || now.state.superseded).map(({ written }) => written.id);
    if (gone.length > 0) {
      await deps.vectors.write([{ op: 'delete', index, ids: gone }]);
      await deps.vectors.purgeDeleted();
    }
    pending = after.filter(({ written, now }) => now.state !== null && !now.state.superseded && now.revision !== written.revision).map(({ written }) => written.id);
  }
  return pending.length === 0;
}

/** Whether the index's reactor has passed `position` already (no waiting). */
async function hasIndexed(readYourWrites: ReadYourWrites, position: string): Promise<boolean> {
  return readYourWrites.settleReactor(MEMORY_SEARCH_INDEX, positionFromString(position), 0).then(
    () => true,
    () => false,
  );
}

/** A memory as its stream says it now is, and how many events the stream holds (its revision + 1). */
async function folded(events: EventStore, id: string): Promise<{ readonly id: string; readonly state: ActiveMemory | null; readonly revision: number }> {
  const recorded = await events.readStream(memoryStreamId(id));
  const state = recorded.map(upcastMemoryEvent).reduce(memoryDecider.evolve, memoryDecider.initialState());
  return { id, state: state.status === 'active' ? state : null, revision: recorded.length };
}
