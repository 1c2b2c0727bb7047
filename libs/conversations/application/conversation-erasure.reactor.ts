import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { Reactor } from '@lore/platform/projections';
import { eraseAggregates, sealedKeyId, type Keyring } from '@lore/platform/crypto';
import { CONVERSATION_STREAM_PREFIX, conversationStreamId, upcastConversationEvent } from '@lore/conversations/domain';

export const CONVERSATION_ERASURE = 'conversations.erasure.v1';

/**
 * Permanent deletion of conversations and of messages. Once every other processor has
 * passed the deletion (the read models dropped it, the publisher announced it): a deleted
 * conversation's keys are shredded (its own and every message's), its stream deleted and
 * the engines made to forget the bytes; deleted messages' keys are shredded (their events
 * stay in the conversation's stream, unreadable) and the read models' files purged.
 * Checkpointed, every step idempotent: a crash anywhere is repaired on restart.
 */
export function conversationErasureReactor(deps: {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly processedByOthers: (position: Position, erasedStreams: readonly string[]) => Promise<void>;
}): Reactor {
  return {
    name: CONVERSATION_ERASURE,
    streamPrefixes: [CONVERSATION_STREAM_PREFIX],
    async react(recorded) {
      const deletions = recorded.map((r) => ({ r, event: upcastConversationEvent(r) })).filter(({ event }) => event.type === 'conversations.ConversationDeleted' || event.type === 'conversations.MessagesDeleted');
      const last = deletions.at(-1);
      if (last === undefined) return;
      const erased = deletions.filter(({ event }) => event.type === 'conversations.ConversationDeleted').map(({ event }) => conversationStreamId(event.data.conversationId));
      await deps.processedByOthers(last.r.position, erased);
      const keyIds: string[] = [];
      const streamIds = new Set<string>();
      for (const { event } of deletions) {
        const streamId = conversationStreamId(event.data.conversationId);
        const deletedIds = event.type === 'conversations.MessagesDeleted' ? new Set(event.data.messageIds) : null;
        if (deletedIds === null) streamIds.add(streamId);
        // Already gone when a crash came after the stream's deletion: its keys went first.
        for (const stored of await deps.events.readStream(streamId)) {
          const e = upcastConversationEvent(stored);
          const sealed =
            e.type === 'conversations.MessageAppended' || e.type === 'conversations.MessageUpdated'
              ? deletedIds === null || deletedIds.has(e.data.messageId)
                ? e.data.content
                : undefined
              : deletedIds === null && 'content' in e.data
                ? e.data.content
                : undefined;
          if (sealed !== undefined) keyIds.push(sealedKeyId(sealed));
        }
      }
      await eraseAggregates(deps, { keyIds, streamIds: [...streamIds] });
    },
  };
}
