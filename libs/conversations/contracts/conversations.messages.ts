import { z } from 'zod';
import { defineMessage, RerankRequestInput } from '@lore/platform/kernel';
import { CONVERSATION_SORT_FIELDS, CONVERSATION_STATUSES, EXPORT_FORMATS, MEMORY_EXTRACTION_SETTINGS, MESSAGE_SORT_FIELDS, type ContextDefaults, type ConversationLimits } from './conversations.config';
import { conversationFields, ConversationId, MessageId, UserId } from './conversations.fields';
import { ConversationContext, ConversationRecord, MessageRecord } from './conversations.records';

/**
 * Who acts, for which user, and which collections they may search (an API key's
 * `collections`; null: every collection of the workspace). Resolved by the gateway from the
 * credential; the service applies it to every message.
 */
export const ConversationScope = z.object({
  workspaceId: z.string().min(1).max(255),
  userId: UserId,
  actor: z.string().min(1).max(300),
  collections: z.array(z.string().min(1).max(100)).max(10_000).nullable(),
});
export type ConversationScope = z.infer<typeof ConversationScope>;

const conversationRef = ConversationScope.extend({ conversationId: ConversationId });
const messageRef = ConversationScope.extend({ messageId: MessageId });
const Page = <T extends z.ZodType>(item: T) => z.object({ items: z.array(item), total: z.number().int(), nextCursor: z.string().nullable() });

/**
 * The conversation service's messages. Requests carry the configured limits, so the
 * service enforces them for every caller on the transport, not only behind the gateway.
 */
export function conversationMessages({ limits, context }: { readonly limits: ConversationLimits; readonly context: ContextDefaults }) {
  const f = conversationFields(limits);
  const messageFields = {
    content: f.content,
    role: f.role.default('user'),
    messageType: f.messageType.default('text'),
    senderId: f.senderId.optional(),
    clientMessageId: f.clientMessageId.optional(),
    checksum: f.checksum.optional(),
    toolCalls: f.toolCalls.optional(),
    attachments: f.attachments.optional(),
    tags: f.tags.optional(),
    metaData: f.metadata.optional(),
    sentAt: f.sentAt.optional(),
  };
  return {
    create: defineMessage(
      'conversations.command.create',
      ConversationScope.extend({
        title: f.title.nullish(),
        status: z.enum(CONVERSATION_STATUSES).default('active'),
        collectionIds: f.collectionIds.default([]),
        memoryExtraction: z.enum(MEMORY_EXTRACTION_SETTINGS).default('off'),
        tags: f.tags.default([]),
        metadata: f.metadata.default({}),
      }),
      ConversationRecord,
    ),
    /** Absent fields stay; `title: null` clears the title. */
    update: defineMessage(
      'conversations.command.update',
      conversationRef.extend({
        title: f.title.nullish(),
        status: z.enum(CONVERSATION_STATUSES).optional(),
        collectionIds: f.collectionIds.optional(),
        memoryExtraction: z.enum(MEMORY_EXTRACTION_SETTINGS).optional(),
        tags: f.tags.optional(),
        metadata: f.metadata.optional(),
        currentMessageId: MessageId.optional(),
      }),
      ConversationRecord,
    ),
    /** Permanent: answered once the conversation and every message are erased. */
    delete: defineMessage('conversations.command.delete', conversationRef, z.object({ conversationId: z.string(), deletedMessages: z.number().int(), erasing: z.boolean().optional() })),
    get: defineMessage('conversations.query.get', conversationRef, ConversationRecord),
    list: defineMessage(
      'conversations.query.list',
      ConversationScope.extend({
        cursor: z.string().min(1).max(2000).optional(),
        limit: z.number().int().min(1).max(100).default(50),
        sortBy: z.enum(CONVERSATION_SORT_FIELDS).default('updated_at'),
        sortOrder: z.enum(['asc', 'desc']).default('desc'),
        status: z.enum(CONVERSATION_STATUSES).optional(),
        search: z.string().min(1).max(500).optional(),
        collectionId: z.string().min(1).max(100).optional(),
      }),
      z.object({ items: z.array(ConversationRecord), nextCursor: z.string().nullable() }),
    ),
    /** Appends to the active path, or under `parentMessageId`; a retry (same client id, or same checksum, role, sender and parent) returns the first. */
    append: defineMessage(
      'conversations.command.append-message',
      conversationRef.extend({ ...messageFields, parentMessageId: MessageId.nullish() }),
      z.object({ message: MessageRecord, created: z.boolean() }),
    ),
    /** A content change makes an edited sibling (and moves the active path to it); tags and meta_data alone change in place. */
    updateMessage: defineMessage(
      'conversations.command.update-message',
      messageRef.extend({ ...messageFields, content: f.content.optional(), role: f.role.optional(), messageType: f.messageType.optional() }),
      z.object({ message: MessageRecord, created: z.boolean() }),
    ),
    /** Permanent, with the message's replies (its subtree). */
    deleteMessage: defineMessage('conversations.command.delete-message', messageRef, z.object({ messageId: z.string(), deletedMessages: z.number().int(), erasing: z.boolean().optional() })),
    getMessage: defineMessage('conversations.query.get-message', messageRef, MessageRecord),
    listMessages: defineMessage(
      'conversations.query.list-messages',
      ConversationScope.extend({
        conversationId: ConversationId.optional(),
        senderId: UserId.optional(),
        role: f.role.optional(),
        messageType: f.messageType.optional(),
        search: z.string().min(1).max(1000).optional(),
        tags: f.tags.optional(),
        skip: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(100),
        sortBy: z.enum(MESSAGE_SORT_FIELDS).default('created_at'),
        sortOrder: z.enum(['asc', 'desc']).default('desc'),
        cursor: z.string().min(1).max(2000).optional(),
      }),
      Page(MessageRecord),
    ),
    /** The active path (default), the path to `leafId`, or every branch. */
    conversationMessages: defineMessage(
      'conversations.query.conversation-messages',
      conversationRef.extend({
        includeBranches: z.boolean().default(false),
        leafId: MessageId.optional(),
        skip: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(1000),
      }),
      z.object({ items: z.array(MessageRecord), total: z.number().int(), currentMessageId: z.string().nullable() }),
    ),
    export: defineMessage(
      'conversations.query.export',
      conversationRef.extend({ format: z.enum(EXPORT_FORMATS).default('json') }),
      z.object({
        conversation: ConversationRecord,
        messages: z.array(MessageRecord).describe('Every message of every branch, oldest first'),
        activePath: z.array(z.string()),
        exportedAt: z.string(),
        markdown: z.string().nullable(),
      }),
    ),
    context: defineMessage(
      'conversations.query.context',
      conversationRef.extend({
        /** Which sources the caller may read: the gateway sets them from its grants (memories:read, collections:read). */
        sources: z.object({ memories: z.boolean(), collections: z.boolean() }),
        query: z.string().min(1).max(10_000).optional(),
        maxTokens: z.number().int().min(1).max(context.maxTokensLimit).optional(),
        memoryLimit: z.number().int().min(0).max(50).optional(),
        chunkLimit: z.number().int().min(0).max(50).optional(),
        messageLimit: z.number().int().min(0).max(1000).optional(),
        rerank: RerankRequestInput.optional(),
        /** Summarise the older messages that do not fit with the chat model (cached per branch). */
        compact: z.boolean().default(false),
      }),
      ConversationContext,
    ),
  };
}
export type ConversationMessages = ReturnType<typeof conversationMessages>;
