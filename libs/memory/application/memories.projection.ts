import { evolveDocument, type Projection } from '@lore/platform/projections';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';
import { MEMORIES, type MemoryDoc } from './memory.read-models';

/** Current version of every memory, for get and list. */
export const memoriesProjection: Projection = {
  name: 'memory.memories.v2',
  streamPrefixes: [MEMORY_STREAM_PREFIX],
  collections: [MEMORIES],
  async handle(recorded, context) {
    const event = upcastMemoryEvent(recorded);
    await evolveDocument<MemoryDoc>(context, recorded, MEMORIES, event.data.memoryId, (current) => {
      switch (event.type) {
        case 'memory.MemoryCreated': {
          const d = event.data;
          return {
            id: d.memoryId,
            workspace_id: d.workspaceId,
            user_id: d.userId,
            memory_type: d.memoryType,
            content: d.content,
            version: 1,
            created_at: d.createdAt,
            updated_at: d.createdAt,
            superseded: false,
            expires_at: d.expiresAt ?? null,
          };
        }
        case 'memory.MemoryReplaced':
          return current && { ...current, content: event.data.content, version: event.data.version, updated_at: event.data.replacedAt };
        case 'memory.MemoryInvalidated':
          return current && { ...current, superseded: true, version: event.data.version, updated_at: event.data.invalidatedAt };
        case 'memory.MemoryReinstated':
          return current && { ...current, superseded: false, version: event.data.version, updated_at: event.data.reinstatedAt };
        case 'memory.MemoryMatched':
          return current;
        case 'memory.MemoryDeleted':
          return null;
      }
    });
  },
};
