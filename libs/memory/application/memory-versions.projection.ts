import type { Projection } from '@lore/platform/projections';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';
import { MEMORY_VERSIONS, type MemoryVersionDoc } from './memory.read-models';

/** Every version of every memory, for history and export. */
export const memoryVersionsProjection: Projection = {
  name: 'memory.memory-versions.v1',
  streamPrefixes: [MEMORY_STREAM_PREFIX],
  collections: [MEMORY_VERSIONS],
  async handle(recorded, context) {
    const event = upcastMemoryEvent(recorded);
    switch (event.type) {
      case 'memory.MemoryCreated': {
        const d = event.data;
        const doc: MemoryVersionDoc = {
          id: `${d.memoryId}:1`,
          memory_id: d.memoryId,
          workspace_id: d.workspaceId,
          user_id: d.userId,
          version: 1,
          event: 'created',
          content: d.content,
          recorded_at: d.createdAt,
        };
        context.upsert(MEMORY_VERSIONS, doc);
        return;
      }
      case 'memory.MemoryReplaced': {
        const d = event.data;
        const doc: MemoryVersionDoc = {
          id: `${d.memoryId}:${d.version}`,
          memory_id: d.memoryId,
          workspace_id: d.workspaceId,
          user_id: d.userId,
          version: d.version,
          event: 'replaced',
          content: d.content,
          recorded_at: d.replacedAt,
        };
        context.upsert(MEMORY_VERSIONS, doc);
        return;
      }
      case 'memory.MemoryDeleted':
        context.deleteMany(MEMORY_VERSIONS, { memory_id: event.data.memoryId });
        return;
    }
  },
};
