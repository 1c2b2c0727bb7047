import type { Transport } from '@lore/platform/transport/port';
import type { Projection } from '@lore/platform/projections';
import { memoryEventSubject, type MemoryIntegrationEvent } from '@lore/memory/contracts';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';

/**
 * Publishes integration events for downstream subscribers, at least once: it runs as a
 * checkpointed projection, so a restart resumes where publishing stopped. The payload
 * names the memory but never carries its content.
 */
export function memoryEventsPublisher(transport: Transport): Projection {
  return {
    name: 'memory.integration-events.v1',
    streamPrefixes: [MEMORY_STREAM_PREFIX],
    collections: [],
    async handle(recorded) {
      const event = upcastMemoryEvent(recorded);
      let message: MemoryIntegrationEvent;
      switch (event.type) {
        case 'memory.MemoryCreated':
          message = base('memory.created', event.data.workspaceId, event.data.userId, event.data.memoryId, 1);
          break;
        case 'memory.MemoryReplaced':
          message = base('memory.replaced', event.data.workspaceId, event.data.userId, event.data.memoryId, event.data.version);
          break;
        case 'memory.MemoryDeleted':
          message = base('memory.deleted', event.data.workspaceId, event.data.userId, event.data.memoryId, 0);
          break;
      }
      await transport.publish(memoryEventSubject(message.type), message);

      function base(type: MemoryIntegrationEvent['type'], workspaceId: string, userId: string, memoryId: string, version: number): MemoryIntegrationEvent {
        return { type, event_id: recorded.id, occurred_at: recorded.recordedAt, workspace_id: workspaceId, user_id: userId, memory_id: memoryId, version };
      }
    },
  };
}
