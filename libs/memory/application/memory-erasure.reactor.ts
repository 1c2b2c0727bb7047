import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import type { VectorStore } from '@lore/platform/vectors/port';
import { eraseAggregates, sealedKeyId, type Keyring } from '@lore/platform/crypto';
import { MEMORY_STREAM_PREFIX, memoryStreamId, upcastMemoryEvent } from '@lore/memory/domain';

export const MEMORY_ERASURE = 'memory.erasure.v1';

/**
 * Permanent deletion (SPEC §3 rule 2), driven by `memory.MemoryDeleted`: once every other
 * processor of the memory streams has passed the deletion (the read models have dropped
 * the memory, the publisher has announced it), shred its data key, delete its stream and make the
 * engines forget the bytes. A reactor with a checkpoint, so a crash between the deletion
 * event and the shredding is repaired on restart; every step is idempotent.
 */
export function memoryErasureReactor(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  /** The search index: its deleted points' text and vectors are purged with the rest. */
  readonly vectors: VectorStore;
  /** Resolves once every other processor has handled the position: deleting the stream first would hide the events from them. */
  readonly processedByOthers: (position: Position) => Promise<void>;
}): Reactor {
  return {
    name: MEMORY_ERASURE,
    streamPrefixes: [MEMORY_STREAM_PREFIX],
    async react(events) {
      const deletions = events.filter((e) => e.type === 'memory.MemoryDeleted');
      const last = deletions[deletions.length - 1];
      if (last === undefined) return;
      await deps.processedByOthers(last.position);
      const keyIds: string[] = [];
      const streamIds: string[] = [];
      for (const deletion of deletions) {
        const streamId = memoryStreamId(upcastMemoryEvent(deletion).data.memoryId);
        streamIds.push(streamId);
        // Already gone when a crash came after the stream's deletion: its key went first.
        for (const event of await deps.events.readStream(streamId)) {
          const data = upcastMemoryEvent(event).data;
          if ('content' in data) keyIds.push(sealedKeyId(data.content));
        }
      }
      await eraseAggregates(deps, { keyIds, streamIds });
      await deps.vectors.purgeDeleted();
    },
  };
}
