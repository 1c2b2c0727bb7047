import { integrationEvents } from '@lore/platform/http';
import { ConversationIntegrationEvent } from '@lore/conversations/contracts';

/** What conversations publishes (conversation-events.publisher.ts), described for `/asyncapi.json`. */
export const conversationsIntegrationEvents = integrationEvents({
  name: 'ConversationIntegrationEvent',
  schema: ConversationIntegrationEvent,
  description: 'A conversation or its messages changed. Ids only, nothing anyone wrote: subscribers fetch what they may read. `message_ids` names the messages concerned (empty for conversation events).',
  published: {
    'conversation.created': 'A conversation was started.',
    'conversation.updated': 'A conversation\'s title, tags, metadata, collections or status changed, or another branch became its current one.',
    'conversation.deleted': 'A conversation was deleted with all its messages.',
    'message.created': 'A message was appended (an edit appends a sibling message); `message_ids` holds it.',
    'message.updated': 'A message\'s tags or metadata changed in place; `message_ids` holds it.',
    'messages.deleted': 'A message was deleted with its whole subtree; `message_ids` lists every deleted message.',
  },
});
