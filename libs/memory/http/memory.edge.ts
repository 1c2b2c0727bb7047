import { defineEdge } from '@lore/platform/http';
import { memoryConfig } from '@lore/memory/contracts';
import { memoryRoutes } from './memory.routes';
import { memoryIntegrationEvents } from './memory.asyncapi';

/** Memories over HTTP (SPEC §4.8), plus list, history, bulk delete, export, extraction and undo. */
export const memoryEdge = defineEdge({
  name: 'memory',
  config: memoryConfig,
  events: [memoryIntegrationEvents],
  routes: ({ limits, extraction }) => memoryRoutes(limits, extraction),
});
