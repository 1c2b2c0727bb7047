import { z } from 'zod';
import { AppError, RerankRequestInput } from '@lore/platform/kernel';
import { AcceptedReply, actingOwner, cursorEnvelope, cursorPage, holdsPermission, route, TextReply, type HttpRoute, type RequestScope } from '@lore/platform/http';
import {
  CONVERSATION_SORT_FIELDS,
  CONVERSATION_STATUSES,
  ConversationContext,
  ConversationRecord,
  EXPORT_FORMATS,
  MEMORY_EXTRACTION_SETTINGS,
  MessageId,
  MessageRecord,
  UserId,
  conversationFields,
  type ConversationLimits,
  type ConversationMessages,
  type ContextDefaults,
} from '@lore/conversations/contracts';
import { ConversationParams, UserIdQuery, WITH_COLLECTIONS } from './route-params';

/** The 202 of a conversation's DELETE, as documented. */
const ERASURE_UNDER_WAY =
  "Deleted, and gone from the conversation's own reads at once and from message lists once the read models have dropped it, but its erasure (every message made unreadable and gone from the files) did not finish within the request's wait; it goes on by itself. " +
  'Repeat the DELETE to follow it: 202 while it runs, 200 when it finishes within that wait, 404 once nothing of it is left.';
const DeletedResponse = z.object({ id: z.string(), message: z.string(), deleted_messages: z.number().int() });
const ExportResponse = z.object({
  conversation: ConversationRecord,
  messages: z.array(MessageRecord).describe('Every message of every branch, oldest first'),
  active_path: z.array(z.string()).describe('Ids of the active path, root first'),
  exported_at: z.string(),
});

/** SPEC §4.7 (the conversation list), plus create, get, update, delete, export and the next turn's context. */
/** Naming collections for a conversation to search takes the right to read them: 403 otherwise. */
const memoryExtraction = z
  .enum(MEMORY_EXTRACTION_SETTINGS)
  .describe('`after_user_turn`: extract memories for the owner in the background after each user message (needs memories:write); `off` (default): only on request');

/** Background extraction writes the owner's memories: turning it on takes the permission to write them. */
function mayExtractMemories(scope: RequestScope, setting: string | null | undefined): void {
  if (setting === 'after_user_turn' && !holdsPermission(scope.caller, 'memories', 'write')) throw new AppError('forbidden', 'memory_extraction after_user_turn needs the permission memories:write');
}

function mayNameCollections(scope: RequestScope, collectionIds: readonly string[] | null | undefined): void {
  if (collectionIds && collectionIds.length > 0 && !holdsPermission(scope.caller, 'collections', 'read')) throw new AppError('forbidden', 'collection_ids need the permission collections:read');
}

export function conversationRoutes(messages: ConversationMessages, limits: ConversationLimits, context: ContextDefaults): HttpRoute[] {
  const f = conversationFields(limits);
  const common = { tags: ['Conversations'], auth: true } as const;
  const listQuery = z.object({
    cursor: z.string().min(1).max(2000).optional().describe('next_cursor of the previous page'),
    limit: z.coerce.number().int().min(1).max(100).default(50),
    sort_by: z.enum(CONVERSATION_SORT_FIELDS).default('updated_at'),
    sort_order: z.enum(['asc', 'desc']).default('desc'),
    status: z.enum(CONVERSATION_STATUSES).optional(),
    search: z.string().min(1).max(500).optional().describe('Case-insensitive substring of the title'),
    user_id: UserId.optional().describe("Whose conversations to list (default: a JWT's `sub`, a key's creator). Another user takes a workspace administrator, or a key one minted: 403 otherwise."),
    collection_id: z.string().min(1).max(100).optional().describe('Conversations that search this collection'),
  });
  const list = (path: string, operationId: string) =>
    route({
      ...common,
      method: 'GET',
      path,
      operationId,
      summary: 'List conversations',
      permission: ['conversations', 'read'],
      query: listQuery,
      status: 200,
      response: cursorEnvelope('conversations', ConversationRecord),
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const page = await send(messages.list, {
          ...actingOwner(scope, query.user_id, WITH_COLLECTIONS),
          limit: query.limit,
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          cursor: query.cursor,
          status: query.status,
          search: query.search,
          collectionId: query.collection_id,
        });
        return cursorPage('conversations', page.items, page.nextCursor);
      },
    });

  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/conversations',
      operationId: 'create_conversation',
      summary: 'Create a conversation',
      permission: ['conversations', 'write'],
      body: z.object({
        user_id: UserId.optional().describe("Owner (default: a JWT's `sub`, a key's creator). Another user takes a workspace administrator, or a key one minted: 403 otherwise."),
        title: f.title.nullish(),
        status: z.enum(CONVERSATION_STATUSES).nullish().describe('Default `active`'),
        collection_ids: f.collectionIds.nullish().describe('Collections of the workspace the context endpoint searches'),
        memory_extraction: memoryExtraction.nullish(),
        tags: f.tags.nullish(),
        metadata: f.metadata.nullish(),
      })
        .default({})
        .describe('Every field is optional: an empty or absent body starts an untitled conversation'),
      status: 201,
      response: ConversationRecord,
      errors: [403],
      handle: async ({ body, scope, send }) => {
        mayNameCollections(scope, body.collection_ids);
        mayExtractMemories(scope, body.memory_extraction);
        return send(messages.create, {
          ...actingOwner(scope, body.user_id, WITH_COLLECTIONS),
          title: body.title ?? null,
          status: body.status ?? 'active',
          collectionIds: body.collection_ids ?? [],
          memoryExtraction: body.memory_extraction ?? 'off',
          tags: body.tags ?? [],
          metadata: body.metadata ?? {},
        });
      },
    }),
    list('/conversations', 'list_conversations_unprefixed'),
    list('/api/v1/conversations', 'list_conversations'),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/conversations/:conversation_id',
      operationId: 'get_conversation',
      summary: 'Get a conversation',
      permission: ['conversations', 'read'],
      params: ConversationParams,
      query: UserIdQuery,
      status: 200,
      response: ConversationRecord,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => send(messages.get, { ...actingOwner(scope, query.user_id, WITH_COLLECTIONS), conversationId: params.conversation_id }),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/v1/conversations/:conversation_id',
      operationId: 'update_conversation',
      summary: 'Update a conversation (title, status, collections, tags, metadata, active branch)',
      permission: ['conversations', 'write'],
      params: ConversationParams,
      query: UserIdQuery,
      body: z.object({
        title: f.title.nullish().describe('null clears the title'),
        status: z.enum(CONVERSATION_STATUSES).optional(),
        collection_ids: f.collectionIds.optional(),
        memory_extraction: memoryExtraction.optional(),
        tags: f.tags.optional(),
        metadata: f.metadata.optional().describe('Replaces the metadata'),
        current_message_id: MessageId.optional().describe('Make the active path end at this message (switch branch)'),
      }),
      status: 200,
      response: ConversationRecord,
      errors: [403, 404, 409],
      handle: async ({ params, query, body, scope, send }) => {
        mayNameCollections(scope, body.collection_ids);
        mayExtractMemories(scope, body.memory_extraction);
        return send(messages.update, {
          ...actingOwner(scope, query.user_id, WITH_COLLECTIONS),
          conversationId: params.conversation_id,
          title: body.title,
          status: body.status,
          collectionIds: body.collection_ids,
          memoryExtraction: body.memory_extraction,
          tags: body.tags,
          metadata: body.metadata,
          currentMessageId: body.current_message_id,
        });
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/conversations/:conversation_id',
      operationId: 'delete_conversation',
      summary: 'Permanently delete a conversation with every message',
      permission: ['conversations', 'write'],
      params: ConversationParams,
      query: UserIdQuery,
      status: 200,
      response: DeletedResponse,
      accepted: ERASURE_UNDER_WAY,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const { deletedMessages, erasing } = await send(messages.delete, { ...actingOwner(scope, query.user_id, WITH_COLLECTIONS), conversationId: params.conversation_id });
        if (erasing === true) return new AcceptedReply({ id: params.conversation_id, message: 'Conversation deleted; its erasure is under way', deleted_messages: deletedMessages });
        return { id: params.conversation_id, message: 'Conversation deleted permanently', deleted_messages: deletedMessages };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/conversations/:conversation_id/export',
      operationId: 'export_conversation',
      summary: 'Export a conversation as JSON (every branch) or Markdown (the active path)',
      permission: ['conversations', 'read'],
      params: ConversationParams,
      query: UserIdQuery.extend({ format: z.enum(EXPORT_FORMATS).default('json') }),
      status: 200,
      response: ExportResponse,
      textResponses: ['text/markdown'],
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const exported = await send(messages.export, { ...actingOwner(scope, query.user_id, WITH_COLLECTIONS), conversationId: params.conversation_id, format: query.format });
        if (exported.markdown !== null) return new TextReply('text/markdown', exported.markdown);
        return { conversation: exported.conversation, messages: exported.messages, active_path: exported.activePath, exported_at: exported.exportedAt };
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/conversations/:conversation_id/context',
      operationId: 'conversation_context',
      summary: "Context for the assistant's next turn: recent messages, relevant memories and passages, within a token budget (memories need memories:read, passages collections:read)",
      permission: ['conversations', 'read'],
      params: ConversationParams,
      query: UserIdQuery,
      body: z.object({
        query: z.string().min(1).max(10_000).nullish().describe('What to rank memories and passages against; default the last user message'),
        max_tokens: z.number().int().min(1).max(context.maxTokensLimit).nullish().describe(`Token budget of \`context\`; default ${context.maxTokens}`),
        memory_limit: z.number().int().min(0).max(50).nullish().describe(`Memories to consider; default ${context.memoryLimit}`),
        chunk_limit: z.number().int().min(0).max(50).nullish().describe(`Passages to consider; default ${context.chunkLimit}`),
        message_limit: z.number().int().min(0).max(1000).nullish().describe(`Recent messages to consider; default ${context.messageLimit}`),
        rerank: RerankRequestInput.nullish().describe("Re-rank memories and passages (README: Re-ranking); default: each collection's `settings.rerank` for its passages; `false` skips those"),
        compact: z
          .boolean()
          .nullish()
          .describe('Summarise the older messages that do not fit with the chat model (CHAT_OPENAI_BASE_URL), cached per branch; default false'),
      })
        .default({})
        .describe('Every field is optional: an absent body takes the defaults'),
      status: 200,
      response: ConversationContext,
      errors: [403, 404, 502, 504],
      handle: async ({ params, query, body, scope, send }) =>
        send(messages.context, {
          ...actingOwner(scope, query.user_id, WITH_COLLECTIONS),
          conversationId: params.conversation_id,
          // What the context may draw on is what the caller may read.
          sources: { memories: holdsPermission(scope.caller, 'memories', 'read'), collections: holdsPermission(scope.caller, 'collections', 'read') },
          query: body.query ?? undefined,
          maxTokens: body.max_tokens ?? undefined,
          memoryLimit: body.memory_limit ?? undefined,
          chunkLimit: body.chunk_limit ?? undefined,
          messageLimit: body.message_limit ?? undefined,
          rerank: body.rerank ?? undefined,
          compact: body.compact ?? false,
        }),
    }),
  ];
}
