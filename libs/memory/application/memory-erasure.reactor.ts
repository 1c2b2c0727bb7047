import type { Reactor } from '@lore/platform/projections';
import type { VectorStore } from '@lore/platform/vectors/port';
import { sealedKeyId, streamErasureReactor, type StreamErasureDeps } from '@lore/platform/crypto';
import { MEMORY_STREAM_PREFIX, memoryStreamId, upcastMemoryEvent } from '@lore/memory/domain';

export const MEMORY_ERASURE = 'memory.erasure.v1';

/**
 * Permanent deletion (SPEC §3 rule 2), driven by `memory.MemoryDeleted`: the memory's data
 * key and stream go once the read models have dropped it and the publisher has announced it,
 * and the search index's deleted points (text and vectors) are purged with the rest.
 */
export function memoryErasureReactor(deps: StreamErasureDeps & { readonly vectors: VectorStore }): Reactor {
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
    afterwards: () => deps.vectors.purgeDeleted(),
  });
}
