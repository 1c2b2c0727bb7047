import { defineEdge } from '@lore/platform/http';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { conversationRoutes } from './conversations.routes';
import { messageRoutes } from './messages.routes';
import { conversationsIntegrationEvents } from './conversations.asyncapi';

/** Conversations and messages over HTTP (SPEC §4.7), with branches, export and the next turn's context. */
export const conversationsEdge = defineEdge({
  name: 'conversations',
  config: conversationsConfig,
  events: [conversationsIntegrationEvents],
  routes({ limits, context }) {
    const messages = conversationMessages({ limits, context });
    return [...conversationRoutes(messages, limits, context), ...messageRoutes(messages, limits)];
  },
});
