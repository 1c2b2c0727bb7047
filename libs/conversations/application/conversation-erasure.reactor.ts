import type { RecordedEvent } from '@lore/platform/kernel';
import type { Reactor } from '@lore/platform/projections';
import { sealedKeyId, streamErasureReactor, type StreamErasureDeps } from '@lore/platform/crypto';
import { CONVERSATION_STREAM_PREFIX, conversationStreamId, upcastConversationEvent } from '@lore/conversations/domain';

export const CONVERSATION_ERASURE = 'conversations.erasure.v1';

/**
 * Permanent deletion of conversations and of messages. Once every other processor has
 * passed the deletion (the read models dropped it, the publisher announced it): a deleted
 * conversation's keys are shredded (its own and every message's), its stream deleted and
 * the engines made to forget the bytes; deleted messages' keys are shredded (their events
 * stay in the conversation's stream, unreadable) and the read models' files purged.
 */
export function conversationErasureReactor(deps: StreamErasureDeps): Reactor {
  return streamErasureReactor(deps, {
    name: CONVERSATION_ERASURE,
    streamPrefix: CONVERSATION_STREAM_PREFIX,
    erasedStream: (recorded) => (recorded.type === 'conversations.ConversationDeleted' ? conversationStreamId(upcastConversationEvent(recorded).data.conversationId) : null),
    erasedPart: (recorded) => {
      const event = upcastConversationEvent(recorded);
      if (event.type !== 'conversations.MessagesDeleted') return null;
      const deleted = new Set(event.data.messageIds);
      return { streamId: conversationStreamId(event.data.conversationId), erases: (stored) => isMessageIn(deleted, stored) };
    },
    keyIdsOf: (recorded) => {
      const data = upcastConversationEvent(recorded).data;
      const sealed = 'content' in data ? data.content : undefined;
      return sealed === undefined ? [] : [sealedKeyId(sealed)];
    },
  });
}

/** Whether an event seals the content of one of these messages (a branch summary: under its through-message's key). */
function isMessageIn(messageIds: ReadonlySet<string>, recorded: RecordedEvent): boolean {
  const event = upcastConversationEvent(recorded);
  if (event.type === 'conversations.BranchSummarised') return messageIds.has(event.data.throughMessageId);
  return (event.type === 'conversations.MessageAppended' || event.type === 'conversations.MessageUpdated') && messageIds.has(event.data.messageId);
}
