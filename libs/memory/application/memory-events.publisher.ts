import type { RecordedEvent } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { integrationEventsPublisher, type Reactor } from '@lore/platform/projections';
import type { MemoryIntegrationEvent } from '@lore/memory/contracts';
import { MEMORY_STREAM_PREFIX, upcastMemoryEvent } from '@lore/memory/domain';

/**
 * Publishes integration events for downstream subscribers, at least once: a reactor with a
 * checkpoint, so a restart resumes where publishing stopped. The payload names the memory
 * but never carries its content.
 */
export function memoryEventsPublisher(transport: Transport): Reactor {
  return integrationEventsPublisher(transport, { name: 'memory.integration-events.v1', streamPrefix: MEMORY_STREAM_PREFIX, integrationEvent });
}

function integrationEvent(recorded: RecordedEvent): MemoryIntegrationEvent | null {
  const event = upcastMemoryEvent(recorded);
  const base = { event_id: recorded.id, occurred_at: recorded.recordedAt, workspace_id: event.data.workspaceId, user_id: event.data.userId, memory_id: event.data.memoryId };
  switch (event.type) {
    case 'memory.MemoryCreated':
      return { ...base, type: 'memory.created', version: 1 };
    case 'memory.MemoryReplaced':
      return { ...base, type: 'memory.replaced', version: event.data.version };
    case 'memory.MemoryInvalidated':
      return { ...base, type: 'memory.invalidated', version: event.data.version };
    case 'memory.MemoryReinstated':
      return { ...base, type: 'memory.reinstated', version: event.data.version };
    case 'memory.MemoryMatched':
      return null; // a fact the memory already held: nothing changed
    case 'memory.MemoryDeleted':
      return { ...base, type: 'memory.deleted', version: 0 };
  }
}
