import { z } from 'zod';
import { defineEdge } from '@lore/platform/http';
import { memoryConfig } from '@lore/memory/contracts';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { memoryRoutes } from './memory.routes';
import { memoryIntegrationEvents } from './memory.asyncapi';

/**
 * The edge reads the conversations slice too: extraction from a `conversation_id` reads the
 * conversation's messages through the conversations service (which checks it is the caller's).
 */
const memoryEdgeConfig = z.intersection(memoryConfig, conversationsConfig.transform((conversations) => ({ conversations })));

/** Memories over HTTP (SPEC §4.8), plus list, history, bulk delete, export, extraction and undo. */
export const memoryEdge = defineEdge({
  name: 'memory',
  config: memoryEdgeConfig,
  events: [memoryIntegrationEvents],
  routes: ({ limits, extraction, conversations }) => memoryRoutes(limits, { extraction, conversationMessages: conversationMessages(conversations).conversationMessages }),
});
