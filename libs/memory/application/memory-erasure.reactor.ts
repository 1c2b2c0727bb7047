import type { RecordedEvent } from '@lore/platform/kernel';
import type { Reactor } from '@lore/platform/projections';
import type { VectorStore } from '@lore/platform/vectors/port';
import { sealedKeyId, streamErasureReactor, type StreamErasureDeps } from '@lore/platform/crypto';
import { MEMORY_STREAM_PREFIX, memoryStreamId, upcastMemoryEvent } from '@lore/memory/domain';
import { MEMORY_INDEX_PREFIX } from './memory-search-index.reactor';
import type { MemoryIndexWrites } from './memory-index-writes';

export const MEMORY_ERASURE = 'memory.erasure.v1';

/**
 * Permanent deletion (SPEC §3 rule 2), driven by `memory.MemoryDeleted`: the memory's data
 * key and stream go once the read models have dropped it and the publisher has announced it,
 * and the search index's deleted points (text and vectors) are purged with the rest.
 *
 * It waits for every other processor but the search index's reactor (`processedByOthers` is
 * told so), which embeds every workspace's memories in log order: behind another workspace's
 * backlog a deletion would wait for minutes, and DELETE answer 503. Erasure removes the
 * memories' points itself instead, before their keys go, and the reactor then never writes
 * them back from what it read earlier (MemoryIndexWrites).
 */
export function memoryErasureReactor(
  deps: StreamErasureDeps & { readonly vectors: VectorStore; readonly indexWrites: MemoryIndexWrites },
): Reactor {
  return streamErasureReactor(deps, {
    name: MEMORY_ERASURE,
    streamPrefix: MEMORY_STREAM_PREFIX,
    erasedStream: (event) => (event.type === 'memory.MemoryDeleted' ? memoryStreamId(upcastMemoryEvent(event).data.memoryId) : null),
    keyIdsOf: (event) => {
      const data = upcastMemoryEvent(event).data;
      // A decision's note is sealed under the memory's key too; naming it as well keeps that true by construction.
      const keys = 'content' in data ? [sealedKeyId(data.content)] : [];
      if ('provenance' in data && data.provenance !== undefined && data.provenance.note !== '') keys.push(sealedKeyId(data.provenance.note));
      return [...new Set(keys)];
    },
    alsoErase: (events) => removeFromSearchIndex(deps, events),
    afterwards: () => {
      // Their keys are shredded: the index reactor can no longer open what it may still hold of them.
      deps.indexWrites.erasureDone();
      return deps.vectors.purgeDeleted();
    },
  });
}

/**
 * The erased memories' points leave the search index, which records them as erased
 * (MemoryIndexWrites): from every model's index, an earlier default model's included.
 */
async function removeFromSearchIndex(
  deps: { readonly vectors: VectorStore; readonly indexWrites: MemoryIndexWrites },
  events: readonly RecordedEvent[],
): Promise<void> {
  const memoryIds = [...new Set(events.map((event) => upcastMemoryEvent(event).data.memoryId))];
  if (memoryIds.length === 0) return;
  await deps.indexWrites.alone(async () => {
    deps.indexWrites.forget(memoryIds);
    const indexes = (await deps.vectors.listIndexes()).filter((index) => index.name.startsWith(MEMORY_INDEX_PREFIX));
    if (indexes.length > 0) await deps.vectors.write(indexes.map((index) => ({ op: 'delete' as const, index: index.name, ids: memoryIds })));
  });
}
