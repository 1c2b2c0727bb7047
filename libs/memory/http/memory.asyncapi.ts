import { integrationEvents } from '@lore/platform/http';
import { MemoryIntegrationEvent } from '@lore/memory/contracts';

/** What memory publishes (memory-events.publisher.ts), described for `/asyncapi.json`. */
export const memoryIntegrationEvents = integrationEvents({
  name: 'MemoryIntegrationEvent',
  schema: MemoryIntegrationEvent,
  description: 'A memory changed. Ids and version only, never the memory text: subscribers fetch what they may read, so deletion stays permanent.',
  published: {
    'memory.created': 'A memory was created (version 1).',
    'memory.replaced': 'A memory was replaced by a new version; `version` is the new one.',
    'memory.invalidated': 'A memory was invalidated (superseded) by a memory-extraction decision or an undo: it left lists and search, its history stays.',
    'memory.reinstated': 'An invalidation was undone: the memory is live again.',
    'memory.deleted': 'A memory was deleted, alone or with all of a user\'s memories (`version` 0).',
  },
});
