import { evolveDocument, type Evolve, type Projection } from '@lore/platform/projections';
import { CONVERSATION_STREAM_PREFIX, upcastConversationEvent } from '@lore/conversations/domain';
import { openOrNull, type ConversationSeals } from './conversation-content';
import { CONVERSATIONS, MESSAGES, type ConversationDoc, type MessageDoc } from './conversations.read-models';
import { messageRecord } from './message-record';
import { MESSAGE_PURGES, recordMessagePurge, recordSubtreePurge } from './message-purges';
import { CONVERSATION_SUMMARIES, projectBranchSummaries } from './conversation-summaries.projection';

/** v2: every document records the stream revision it reflects (`evolveDocument`); v1 documents are rebuilt. */
/** v3: conversations carry `memory_extraction`; branch summaries (`projectBranchSummaries`). */
export const CONVERSATIONS_PROJECTION = 'conversations.read-models.v3';

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
    collections: [CONVERSATIONS, MESSAGES, CONVERSATION_SUMMARIES, MESSAGE_PURGES],
    async handle(recorded, context) {
      const event = upcastConversationEvent(recorded);
      await projectBranchSummaries(event, context, seals.summaries);
      // Each document by itself: a conversation's counters and its messages each skip what they already reflect.
      const conversation = (evolve: Evolve<ConversationDoc>) => evolveDocument(context, recorded, CONVERSATIONS, event.data.conversationId, evolve);
      const message = (messageId: string, evolve: Evolve<MessageDoc>) => evolveDocument(context, recorded, MESSAGES, messageId, evolve);
      switch (event.type) {
        case 'conversations.ConversationStarted': {
          const d = event.data;
          return conversation(async () => {
            const content = await openOrNull(seals.conversations, d.conversationId, d.content);
            if (content === null) return null;
            return {
              id: d.conversationId,
              workspace_id: d.workspaceId,
              user_id: d.userId,
              title: content.title,
              status: d.status,
              collection_ids: d.collectionIds,
              memory_extraction: d.memoryExtraction ?? 'off',
              tags: content.tags,
              metadata: content.metadata,
              message_count: 0,
              last_message_at: null,
              current_message_id: null,
              created_by: d.createdBy,
              created_at: d.createdAt,
              updated_at: d.createdAt,
            };
          });
        }
        case 'conversations.ConversationUpdated': {
          const d = event.data;
          return conversation(async (current) => {
            if (current === null) return null;
            const content = d.content === undefined ? null : await openOrNull(seals.conversations, d.conversationId, d.content);
            return {
              ...current,
              ...(content === null ? {} : { title: content.title, tags: content.tags, metadata: content.metadata }),
              ...(d.collectionIds === undefined ? {} : { collection_ids: d.collectionIds }),
              ...(d.memoryExtraction === undefined ? {} : { memory_extraction: d.memoryExtraction }),
              ...(d.status === undefined ? {} : { status: d.status }),
              updated_at: d.updatedAt,
            };
          });
        }
        case 'conversations.MessageAppended': {
          const d = event.data;
          const owner = await context.get<ConversationDoc>(CONVERSATIONS, d.conversationId);
          if (owner === null) return;
          const content = await openOrNull(seals.messages, d.messageId, d.content);
          // Erased since (a rebuild), or its key shredded after a failed request may have stored it:
          // nothing of it to show, but the message is in the conversation's tree (the decider's),
          // so counted, as its deletion, which names it, takes it off again.
          if (content !== null) await message(d.messageId, () => messageRecord(d, content, { workspaceId: owner.workspace_id, userId: owner.user_id }));
          return conversation(
            (current) =>
              current && {
                ...current,
                message_count: current.message_count + 1,
                ...(content === null ? {} : { current_message_id: d.messageId }),
                last_message_at: d.createdAt,
                updated_at: d.createdAt,
              },
          );
        }
        case 'conversations.MessageUpdated': {
          const d = event.data;
          let updated = false;
          await message(d.messageId, async (current) => {
            const content = current === null ? null : await openOrNull(seals.messages, d.messageId, d.content);
            if (current === null || content === null) return current;
            updated = true;
            return { ...current, ...content, updated_at: d.updatedAt };
          });
          if (updated) await conversation((current) => current && { ...current, updated_at: d.updatedAt });
          return;
        }
        case 'conversations.MessagesDeleted': {
          const d = event.data;
          // The messages go afterwards, by the purge worker (message-purges.ts), not in this batch.
          // Recorded whatever the conversation's revision says (a batch half applied on an engine
          // without transactions is delivered again), but not when neither end of the subtree was
          // stored: a rebuild after their erasure recreated none of them, nothing to remove.
          const owner = await context.get<ConversationDoc>(CONVERSATIONS, d.conversationId);
          const [first, last] = [d.messageIds[0], d.messageIds.at(-1)];
          const stored = async (id: string | undefined) => id !== undefined && (await context.get<MessageDoc>(MESSAGES, id)) !== null;
          if (owner !== null && ((await stored(first)) || (await stored(last)))) {
            recordSubtreePurge(context, { ...d, workspaceId: owner.workspace_id, userId: owner.user_id }, recorded.position);
          }
          return conversation((current) => {
            if (current === null) return null;
            // The ids are of live messages only (the decider's), each counted when appended.
            const count = Math.max(0, current.message_count - d.messageIds.length);
            return {
              ...current,
              message_count: count,
              current_message_id: d.currentMessageId,
              // The time a message was last added; none once no message is left.
              last_message_at: count === 0 ? null : current.last_message_at,
              updated_at: d.deletedAt,
            };
          });
        }
        case 'conversations.CurrentMessageSelected':
          return conversation((current) => current && { ...current, current_message_id: event.data.messageId, updated_at: event.data.selectedAt });
        case 'conversations.BranchSummarised':
          return; // projectBranchSummaries's
        case 'conversations.ConversationDeleted':
          return conversation(() => {
            // Its messages go afterwards, by the purge worker (message-purges.ts), not in this batch.
            recordMessagePurge(context, event.data, recorded.position);
            return null;
          });
      }
    },
  };
}
