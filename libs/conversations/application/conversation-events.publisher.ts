import type { RecordedEvent } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { integrationEventsPublisher, type Reactor } from '@lore/platform/projections';
import type { ConversationIntegrationEvent } from '@lore/conversations/contracts';
import { CONVERSATION_STREAM_PREFIX, upcastConversationEvent } from '@lore/conversations/domain';

/**
 * Publishes integration events for downstream subscribers, at least once (a reactor with a
 * checkpoint). Payloads name conversations and messages, never what anyone wrote.
 */
export function conversationEventsPublisher(transport: Transport): Reactor {
  return integrationEventsPublisher(transport, { name: 'conversations.integration-events.v1', streamPrefix: CONVERSATION_STREAM_PREFIX, integrationEvent });
}

function integrationEvent(recorded: RecordedEvent): ConversationIntegrationEvent | null {
  const event = upcastConversationEvent(recorded);
  const meta = recorded.metadata;
  const base = {
    event_id: recorded.id,
    occurred_at: recorded.recordedAt,
    workspace_id: typeof meta.workspaceId === 'string' ? meta.workspaceId : '',
    user_id: typeof meta['userId'] === 'string' ? meta['userId'] : '',
    conversation_id: event.data.conversationId,
  };
  switch (event.type) {
    case 'conversations.ConversationStarted':
      return { ...base, workspace_id: event.data.workspaceId, user_id: event.data.userId, type: 'conversation.created', message_ids: [] };
    case 'conversations.ConversationUpdated':
    case 'conversations.CurrentMessageSelected':
      return { ...base, type: 'conversation.updated', message_ids: [] };
    case 'conversations.ConversationDeleted':
      return { ...base, workspace_id: event.data.workspaceId, user_id: event.data.userId, type: 'conversation.deleted', message_ids: [] };
    case 'conversations.MessageAppended':
      return { ...base, type: 'message.created', message_ids: [event.data.messageId] };
    case 'conversations.MessageUpdated':
      return { ...base, type: 'message.updated', message_ids: [event.data.messageId] };
    case 'conversations.MessagesDeleted':
      return { ...base, type: 'messages.deleted', message_ids: event.data.messageIds };
    case 'conversations.BranchSummarised':
      return null; // a cache of the context endpoint: nothing a subscriber reads changed
  }
}
