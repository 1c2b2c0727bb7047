import type { Projection } from '@lore/platform/projections';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';
import { MEMORIES, type MemoryDoc } from './memory.read-models';

/** Current version of every memory, for get and list. */
export const memoriesProjection: Projection = {
  name: 'memory.memories.v1',
  streamPrefixes: [MEMORY_STREAM_PREFIX],
  collections: [MEMORIES],
  async handle(recorded, context) {
    const event = upcastMemoryEvent(recorded);
    switch (event.type) {
      case 'memory.MemoryCreated': {
        const d = event.data;
        // A memory's first event: a redelivery must not roll a replaced memory back to version 1.
        if ((await context.get<MemoryDoc>(MEMORIES, d.memoryId)) !== null) return;
        const doc: MemoryDoc = {
          id: d.memoryId,
          workspace_id: d.workspaceId,
          user_id: d.userId,
          memory_type: d.memoryType,
          content: d.content,
          version: 1,
          created_at: d.createdAt,
          updated_at: d.createdAt,
        };
        context.upsert(MEMORIES, doc);
        return;
      }
      case 'memory.MemoryReplaced': {
        const current = await context.get<MemoryDoc>(MEMORIES, event.data.memoryId);
        if (current === null || current.version >= event.data.version) return; // idempotent on replay
        context.upsert(MEMORIES, { ...current, content: event.data.content, version: event.data.version, updated_at: event.data.replacedAt });
        return;
      }
      case 'memory.MemoryDeleted':
        context.delete(MEMORIES, event.data.memoryId);
        return;
    }
  },
};
