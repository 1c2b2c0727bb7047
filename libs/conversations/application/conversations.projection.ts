import type { Projection, ProjectionContext } from '@lore/platform/projections';
import { CONVERSATION_STREAM_PREFIX, upcastConversationEvent } from '@lore/conversations/domain';
import { openOrNull, type ConversationSeals } from './conversation-content';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from './conversations.read-models';
import { messageRecord } from './message-record';

export const CONVERSATIONS_PROJECTION = 'conversations.read-models.v1';

/**
 * Conversations and their messages, in one projection so that a message and its
 * conversation's counters change together. Opens the sealed fields it stores; a value whose
 * key was shredded belongs to an erased message or conversation and is skipped (a rebuild
 * after deletions therefore recreates nothing of them).
 */
export function conversationsProjection(seals: ConversationSeals): Projection {
  return {
    name: CONVERSATIONS_PROJECTION,
    streamPrefixes: [CONVERSATION_STREAM_PREFIX],
    collections: [CONVERSATIONS, MESSAGES],
    async handle(recorded, context) {
      const event = upcastConversationEvent(recorded);
      switch (event.type) {
        case 'conversations.ConversationStarted': {
          const d = event.data;
          if ((await context.get(CONVERSATIONS, d.conversationId)) !== null) return;
          const content = await openOrNull(seals.conversations, d.conversationId, d.content);
          if (content === null) return;
          const doc: ConversationDoc = {
            id: d.conversationId,
            workspace_id: d.workspaceId,
            user_id: d.userId,
            title: content.title,
            status: d.status,
            collection_ids: d.collectionIds,
            tags: content.tags,
            metadata: content.metadata,
            message_count: 0,
            last_message_at: null,
            current_message_id: null,
            created_by: d.createdBy,
            created_at: d.createdAt,
            updated_at: d.createdAt,
          };
          context.upsert(CONVERSATIONS, doc);
          return;
        }
        case 'conversations.ConversationUpdated': {
          const d = event.data;
          const current = await context.get<ConversationDoc>(CONVERSATIONS, d.conversationId);
          if (current === null) return;
          const content = d.content === undefined ? null : await openOrNull(seals.conversations, d.conversationId, d.content);
          context.upsert(CONVERSATIONS, {
            ...current,
            ...(content === null ? {} : { title: content.title, tags: content.tags, metadata: content.metadata }),
            ...(d.collectionIds === undefined ? {} : { collection_ids: d.collectionIds }),
            ...(d.status === undefined ? {} : { status: d.status }),
            updated_at: d.updatedAt,
          });
          return;
        }
        case 'conversations.MessageAppended': {
          const d = event.data;
          if ((await context.get(MESSAGES, d.messageId)) !== null) return;
          const conversation = await context.get<ConversationDoc>(CONVERSATIONS, d.conversationId);
          if (conversation === null) return;
          const content = await openOrNull(seals.messages, d.messageId, d.content);
          if (content === null) {
            // Erased since (a rebuild): nothing of it to show, but a message was added then, as live.
            context.upsert(CONVERSATIONS, { ...conversation, last_message_at: d.createdAt, updated_at: d.createdAt });
            return;
          }
          const doc = messageRecord(d, content, { workspaceId: conversation.workspace_id, userId: conversation.user_id });
          context.upsert(MESSAGES, doc);
          context.upsert(CONVERSATIONS, {
            ...conversation,
            message_count: conversation.message_count + 1,
            last_message_at: d.createdAt,
            current_message_id: d.messageId,
            updated_at: d.createdAt,
          });
          return;
        }
        case 'conversations.MessageUpdated': {
          const d = event.data;
          const current = await context.get<MessageDoc>(MESSAGES, d.messageId);
          const content = current === null ? null : await openOrNull(seals.messages, d.messageId, d.content);
          if (current === null || content === null) return;
          context.upsert(MESSAGES, { ...current, ...content, updated_at: d.updatedAt });
          await touch(context, d.conversationId, { updated_at: d.updatedAt });
          return;
        }
        case 'conversations.MessagesDeleted': {
          const d = event.data;
          let removed = 0;
          for (const id of d.messageIds) {
            if ((await context.get(MESSAGES, id)) === null) continue;
            context.delete(MESSAGES, id);
            removed++;
          }
          const conversation = await context.get<ConversationDoc>(CONVERSATIONS, d.conversationId);
          if (conversation === null) return;
          const count = Math.max(0, conversation.message_count - removed);
          context.upsert(CONVERSATIONS, {
            ...conversation,
            message_count: count,
            current_message_id: d.currentMessageId,
            // The time a message was last added; none once no message is left.
            last_message_at: count === 0 ? null : conversation.last_message_at,
            updated_at: d.deletedAt,
          });
          return;
        }
        case 'conversations.CurrentMessageSelected':
          await touch(context, event.data.conversationId, { current_message_id: event.data.messageId, updated_at: event.data.selectedAt });
          return;
        case 'conversations.ConversationDeleted':
          context.delete(CONVERSATIONS, event.data.conversationId);
          context.deleteMany(MESSAGES, { conversation_id: event.data.conversationId });
          return;
      }
    },
  };
}

async function touch(context: ProjectionContext, conversationId: string, changes: Partial<ConversationDoc>): Promise<void> {
  const current = await context.get<ConversationDoc>(CONVERSATIONS, conversationId);
  if (current !== null) context.upsert(CONVERSATIONS, { ...current, ...changes });
}
