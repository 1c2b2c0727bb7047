import { z } from 'zod';

/**
 * Conversation domain events: one stream per conversation, holding the conversation and
 * every message of its tree. Everything a user wrote is sealed (AES-256-GCM): the
 * conversation's fields with the conversation's data key, each message with a key of its
 * own, so that deleting one message (or the whole conversation) shreds exactly its keys and
 * the event log keeps nothing readable of it. Ids, roles and the tree's shape stay clear:
 * the decider needs them.
 */
export const ConversationStarted = z.object({
  type: z.literal('conversations.ConversationStarted'),
  data: z.object({
    conversationId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    /** `user:<sub>` or `api_key:<id>`. */
    createdBy: z.string(),
    status: z.enum(['active', 'archived']),
    collectionIds: z.array(z.string()),
    /** `after_user_turn`: memories are extracted in the background after each user message (absent: off). */
    memoryExtraction: z.enum(['off', 'after_user_turn']).optional(),
    /** Sealed { title, tags, metadata }. */
    content: z.string(),
    createdAt: z.string(),
  }),
});

export const ConversationUpdated = z.object({
  type: z.literal('conversations.ConversationUpdated'),
  data: z.object({
    conversationId: z.string(),
    /** The whole sealed { title, tags, metadata } after the change, when it changed. */
    content: z.string().optional(),
    collectionIds: z.array(z.string()).optional(),
    memoryExtraction: z.enum(['off', 'after_user_turn']).optional(),
    status: z.enum(['active', 'archived']).optional(),
    updatedAt: z.string(),
  }),
});

export const MessageAppended = z.object({
  type: z.literal('conversations.MessageAppended'),
  data: z.object({
    conversationId: z.string(),
    messageId: z.string(),
    parentMessageId: z.string().nullable(),
    role: z.string(),
    messageType: z.string(),
    senderId: z.string(),
    /** The id a client gave its message, so that a retried append finds the first. */
    clientMessageId: z.string().nullable(),
    /** The message this one is an edited version of (a sibling on another branch). */
    editOf: z.string().nullable(),
    /** Sealed { content, checksum, tool_calls, attachments, tags, meta_data } with the message's own key. */
    content: z.string(),
    /**
     * The checksum alone, sealed with the same key: what recognising a retried append needs,
     * small enough for the decider's state to hold for every message (the content is not).
     */
    checksum: z.string(),
    sentAt: z.string(),
    createdAt: z.string(),
    /** A user's message in a conversation with `memory_extraction: after_user_turn` as it was appended (absent: no extraction). */
    extractMemories: z.literal(true).optional(),
  }),
});

/** Tags or metadata changed in place (a content change is an edit: a new sibling message). */
export const MessageUpdated = z.object({
  type: z.literal('conversations.MessageUpdated'),
  data: z.object({ conversationId: z.string(), messageId: z.string(), content: z.string(), updatedAt: z.string() }),
});

/** A message and its whole subtree, permanently; the active path falls back to the parent if it ran through them. */
export const MessagesDeleted = z.object({
  type: z.literal('conversations.MessagesDeleted'),
  data: z.object({
    conversationId: z.string(),
    messageIds: z.array(z.string()),
    currentMessageId: z.string().nullable(),
    deletedAt: z.string(),
  }),
});

/** The active path now ends at another message (a branch chosen by the client). */
export const CurrentMessageSelected = z.object({
  type: z.literal('conversations.CurrentMessageSelected'),
  data: z.object({ conversationId: z.string(), messageId: z.string(), selectedAt: z.string() }),
});

/**
 * The path from the root to `throughMessageId` summarised by the chat model (context
 * compaction), cached for every context request on a branch through that message. `content` is
 * sealed with that message's own key: deleting any message it covers deletes that message's
 * subtree, the through-message included, and so shreds the summary with it.
 */
export const BranchSummarised = z.object({
  type: z.literal('conversations.BranchSummarised'),
  data: z.object({
    conversationId: z.string(),
    throughMessageId: z.string(),
    messageCount: z.number().int(),
    /** Sealed summary text, under the through-message's key. */
    content: z.string(),
    model: z.string(),
    promptVersion: z.string(),
    summarisedAt: z.string(),
  }),
});

export const ConversationDeleted = z.object({
  type: z.literal('conversations.ConversationDeleted'),
  data: z.object({ conversationId: z.string(), workspaceId: z.string(), userId: z.string(), deletedAt: z.string() }),
});

export const ConversationEvent = z.discriminatedUnion('type', [
  ConversationStarted,
  ConversationUpdated,
  MessageAppended,
  MessageUpdated,
  MessagesDeleted,
  CurrentMessageSelected,
  BranchSummarised,
  ConversationDeleted,
]);
export type ConversationEvent = z.infer<typeof ConversationEvent>;
export type ConversationStarted = z.infer<typeof ConversationStarted>;
export type MessageAppended = z.infer<typeof MessageAppended>;

export const CONVERSATION_STREAM_PREFIX = 'conversation-';
export const conversationStreamId = (conversationId: string): string => `${CONVERSATION_STREAM_PREFIX}${conversationId}`;
