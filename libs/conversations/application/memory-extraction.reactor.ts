import { AppError, type RecordedEvent } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { send, type Transport } from '@lore/platform/transport/port';
import type { ContextLog, ReadYourWrites } from '@lore/platform/cqrs';
import type { Reactor } from '@lore/platform/projections';
import { memoryMessages } from '@lore/memory/contracts';
import { CONVERSATION_STREAM_PREFIX, conversationDecider, upcastConversationEvent } from '@lore/conversations/domain';
import type { ConversationsServiceConfig } from './conversations-service.config';
import type { ConversationQueries } from './conversation.queries';

export const CONVERSATION_MEMORY_EXTRACTION = 'conversations.memory-extraction.v1';

/** Recorded as the actor of the memory decisions it causes. */
const ACTOR = 'system:memory-extraction';

/**
 * Background memory extraction (`memory_extraction: "after_user_turn"`): after each user message
 * of such a conversation, sends the memory service the path to that message (its latest
 * MEMORY_EXTRACTION_MAX_MESSAGES messages) for the conversation's owner. The setting is read as
 * it was when the message was appended (the stream folded up to it), so turning it on never
 * extracts from older messages. A failed extraction (no chat model, the model down or answering
 * nonsense) is logged and not retried: the conversation goes on, and `POST /api/v1/memories/extract`
 * with its `conversation_id` runs it again. At least once: a message seen again is extracted
 * again, and the duplicate checks decide its facts `none`.
 */
export function conversationMemoryExtractionReactor(deps: {
  readonly events: EventStore;
  readonly transport: Transport;
  readonly queries: ConversationQueries;
  readonly readYourWrites: ReadYourWrites;
  readonly config: ConversationsServiceConfig;
  readonly log: ContextLog;
}): Reactor {
  const extract = memoryMessages(deps.config.memory.limits).extract;
  const maxMessages = deps.config.memory.extraction.maxMessages;
  return {
    name: CONVERSATION_MEMORY_EXTRACTION,
    streamPrefixes: [CONVERSATION_STREAM_PREFIX],
    // Other events cost it no commit: conversations without extraction add no durable write per event.
    actsOn: (event) => event.type === 'conversations.MessageAppended' && (event.data as { extractMemories?: unknown }).extractMemories === true,
    async react(recorded) {
      for (const event of recorded) {
        const appended = upcastConversationEvent(event);
        if (appended.type !== 'conversations.MessageAppended' || appended.data.extractMemories !== true) continue;
        const owner = await ownerIfExtracting(deps.events, event);
        if (owner === null) continue;
        const { conversationId, messageId } = appended.data;
        try {
          // The read models hold the message texts in the clear; wait until they have this one.
          await deps.readYourWrites.settle(event.position);
          const scope = { ...owner, actor: ACTOR, collections: null, conversationId };
          const path = await deps.queries.conversationMessages({ ...scope, includeBranches: false, leafId: messageId, skip: 0, limit: 1000 });
          const messages = path.items.slice(-maxMessages).map((m) => ({ id: m.id, role: m.role, content: m.content }));
          await send(deps.transport, extract, { ...owner, actor: ACTOR, messages, conversationId, memoryType: 'user' }, { timeoutMs: deps.config.memory.extraction.timeoutMs });
        } catch (error) {
          // Erased meanwhile, or the model failed: nothing to retry here (see above).
          if (!(error instanceof AppError)) throw error;
          deps.log.warn({ conversationId, messageId, code: error.code, err: error.message }, 'background memory extraction failed; POST /api/v1/memories/extract runs it again');
        }
      }
    },
  };
}

/** The conversation's owner when extraction was on as the message was appended; else null. */
async function ownerIfExtracting(events: EventStore, appended: RecordedEvent): Promise<{ workspaceId: string; userId: string } | null> {
  const history = await events.readStream(appended.streamId, { maxCount: appended.revision + 1 });
  const state = history.map(upcastConversationEvent).reduce(conversationDecider.evolve, conversationDecider.initialState());
  if (state.status !== 'active' && state.status !== 'archived') return null;
  return state.memoryExtraction === 'after_user_turn' ? { workspaceId: state.workspaceId, userId: state.userId } : null;
}
