import { defineContext } from '@lore/platform/cqrs';
import { afterErasure } from '@lore/platform/projections';
import { handle } from '@lore/platform/transport/port';
import { conversationMessages } from '@lore/conversations/contracts';
import { conversationsServiceConfig } from './conversations-service.config';
import { conversationSeals } from './conversation-content';
import { ConversationCommands } from './conversation.commands';
import { ConversationQueries } from './conversation.queries';
import { ConversationContextQuery } from './conversation-context.query';
import { KnowledgeCollections } from './knowledge-collections';
import { conversationsProjection } from './conversations.projection';
import { conversationEventsPublisher } from './conversation-events.publisher';
import { CONVERSATION_ERASURE, conversationErasureReactor } from './conversation-erasure.reactor';
import { CONVERSATIONS, MESSAGES } from './conversations.read-models';
import { conversationMemoryExtractionReactor } from './memory-extraction.reactor';
import { ContextCompaction } from './context-compaction';
import { conversationStreamId } from '@lore/conversations/domain';
import { MESSAGE_PURGES, MessagePurgeWorker, purgedConversationStream } from './message-purges';

/** How long erasure may wait for the read models and the publisher to pass a deletion (they may be catching up at start-up). */
const ERASURE_WAIT_MS = 10 * 60_000;

/** The conversations context: conversations, their message trees, and the context for an assistant's next turn. */
export const conversationsContext = defineContext({
  name: 'conversations',
  config: conversationsServiceConfig,
  build(deps) {
    const messages = conversationMessages(deps.config);
    const seals = conversationSeals(deps.keyring);
    const knowledge = new KnowledgeCollections(deps.transport, deps.config.knowledge);
    // Deleted messages (a conversation's, a subtree's), removed after the deletion's batch (message-purges.ts); their DELETE waits for that too.
    const purges = new MessagePurgeWorker({ ...deps, readModelsPassed: afterErasure(deps.readYourWrites, ERASURE_WAIT_MS, (purge) => ({ reactor: CONVERSATION_ERASURE, stream: purgedConversationStream(purge) })) });
    const commands = new ConversationCommands({ ...deps, seals, knowledge, quota: deps.config.quota, messagesPurged: (purgeIds, timeoutMs) => purges.drained(purgeIds, timeoutMs) });
    const queries = new ConversationQueries(deps.documents, deps.clock);
    const compaction = new ContextCompaction({ ...deps, commands });
    const context = new ConversationContextQuery({ ...deps, queries, knowledge, compaction });
    return {
      handlers: [
        handle(messages.create, (c) => commands.create(c)),
        handle(messages.update, (c) => commands.update(c)),
        handle(messages.delete, (c) => commands.delete(c)),
        handle(messages.get, (q) => queries.get(q)),
        handle(messages.list, (q) => queries.list(q)),
        handle(messages.append, (c) => commands.append(c)),
        handle(messages.updateMessage, (c) => commands.updateMessage(c)),
        handle(messages.deleteMessage, (c) => commands.deleteMessage(c)),
        handle(messages.getMessage, (q) => queries.getMessage(q)),
        handle(messages.listMessages, (q) => queries.listMessages(q)),
        handle(messages.conversationMessages, (q) => queries.conversationMessages(q)),
        handle(messages.export, (q) => queries.export(q)),
        handle(messages.context, (q) => context.context(q)),
      ],
      auditedAggregates: [{ collection: CONVERSATIONS, streamId: conversationStreamId }],
      projections: [conversationsProjection(seals)],
      reactors: [
        conversationEventsPublisher(deps.transport),
        conversationMemoryExtractionReactor({ ...deps, queries }),
        conversationErasureReactor({ ...deps, processedByOthers: (position, erased) => deps.readYourWrites.settleAllBut(CONVERSATION_ERASURE, position, ERASURE_WAIT_MS, erased) }),
      ],
      workers: [purges],
      async prepare() {
        const conversations = deps.documents.collection(CONVERSATIONS);
        for (const sort of ['updated_at', 'created_at', 'title']) await conversations.ensureIndex(['workspace_id', 'user_id', sort]);
        const messagesModel = deps.documents.collection(MESSAGES);
        await messagesModel.ensureIndex(['conversation_id', 'created_at']);
        for (const sort of ['created_at', 'updated_at', 'sent_at']) await messagesModel.ensureIndex(['workspace_id', 'owner_id', sort]);
        await messagesModel.ensureTextIndex('content');
        await deps.documents.collection(MESSAGE_PURGES).ensureIndex(['workspace_id', 'position']);
        await deps.documents.collection(MESSAGE_PURGES).ensureIndex(['workspace_id', 'owner_id']);
        await deps.documents.collection(MESSAGE_PURGES).ensureIndex(['conversation_id']);
      },
    };
  },
});
