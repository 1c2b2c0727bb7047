import { z } from 'zod';
import { AcceptedReply, actingOwner, commaList, cursorOffsetPage, offsetEnvelope, offsetPage, queryBoolean, route, skipLimitQuery, type HttpRoute } from '@lore/platform/http';
import { ConversationId, MESSAGE_SORT_FIELDS, MessageId, MessageRecord, UserId, conversationFields, type ConversationLimits, type ConversationMessages } from '@lore/conversations/contracts';
import { ConversationParams, MessageParams, UserIdQuery, WITH_COLLECTIONS } from './route-params';

const DeletedResponse = z.object({ id: z.string(), message: z.string(), deleted_messages: z.number().int().describe('The message and its replies') });
const ERASURE_UNDER_WAY =
  'Deleted with its replies, and gone from reads at once, but its erasure (every one of them made unreadable and gone from the files) did not finish within the request\'s wait: a message with thousands of replies. It goes on by itself. ' +
  'Repeat the DELETE to follow it: 202 while it runs, 200 when it finishes within that wait, 404 once nothing of it is left.';

/** The message fields a client writes (SPEC §2.5), snake_case as the record shows them. */
function messageBody(limits: ConversationLimits) {
  const f = conversationFields(limits);
  return {
    content: f.content,
    role: f.role.nullish().describe('Default `user`; also `assistant`, `system`, `tool`, …'),
    message_type: f.messageType.nullish().describe('Default `text`'),
    sender_id: f.senderId.nullish().describe('Default: the user acting'),
    client_message_id: f.clientMessageId.nullish().describe('Your id for the message: an append retried with it returns the first'),
    checksum: f.checksum.nullish(),
    tool_calls: f.toolCalls.nullish(),
    attachments: f.attachments.nullish(),
    tags: f.tags.nullish(),
    meta_data: f.metadata.nullish(),
    sent_at: f.sentAt.nullish().describe('When the client sent it; default the time Lore stored it'),
  };
}

/** Drops absent and null fields and renames the rest for the message: null means "not given" in message bodies. */
function messageFields(body: Partial<Record<keyof ReturnType<typeof messageBody>, unknown>>) {
  const renamed = {
    content: body.content,
    role: body.role,
    messageType: body.message_type,
    senderId: body.sender_id,
    clientMessageId: body.client_message_id,
    checksum: body.checksum,
    toolCalls: body.tool_calls,
    attachments: body.attachments,
    tags: body.tags,
    metaData: body.meta_data,
    sentAt: body.sent_at,
  };
  return Object.fromEntries(Object.entries(renamed).filter(([, value]) => value !== undefined && value !== null));
}

/** SPEC §4.7 (the message list), plus append, the conversation's path or tree, get, edit and delete. */
export function messageRoutes(messages: ConversationMessages, limits: ConversationLimits): HttpRoute[] {
  const common = { tags: ['Messages'], auth: true } as const;
  const body = messageBody(limits);
  const f = conversationFields(limits);
  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/conversations/:conversation_id/messages',
      operationId: 'append_message',
      summary: 'Append a message (to the active path, or under parent_message_id: a sibling branch)',
      permission: ['conversations', 'write'],
      params: ConversationParams,
      query: UserIdQuery,
      body: z.object({ ...body, parent_message_id: MessageId.nullish().describe('Default (absent or null): the current message, continuing the active path') }),
      status: 201,
      response: MessageRecord,
      errors: [403, 404, 409],
      handle: async ({ params, query, body: input, scope, send }) => {
        const { message } = await send(messages.append, {
          ...actingOwner(scope, query.user_id, WITH_COLLECTIONS),
          conversationId: params.conversation_id,
          content: input.content,
          ...messageFields(input),
          parentMessageId: input.parent_message_id ?? undefined,
        });
        return message;
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/conversations/:conversation_id/messages',
      operationId: 'list_conversation_messages',
      summary: "A conversation's messages: the active path (default), the path to a leaf, or every branch",
      permission: ['conversations', 'read'],
      params: ConversationParams,
      query: skipLimitQuery({ defaultLimit: 1000, maxLimit: 1000 }).extend({
        user_id: UserIdQuery.shape.user_id,
        include_branches: queryBoolean.default(false).describe('Every message of every branch, oldest first'),
        leaf_message_id: MessageId.optional().describe('The path from the root to this message instead of the active one'),
      }),
      status: 200,
      response: offsetEnvelope(MessageRecord).extend({ current_message_id: z.string().nullable() }),
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const page = await send(messages.conversationMessages, {
          ...actingOwner(scope, query.user_id, WITH_COLLECTIONS),
          conversationId: params.conversation_id,
          includeBranches: query.include_branches,
          skip: query.skip,
          limit: query.limit,
          leafId: query.leaf_message_id,
        });
        return { ...offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit, nextCursor: null }), current_message_id: page.currentMessageId };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/messages',
      operationId: 'list_messages',
      summary: 'List messages of the caller\'s conversations',
      permission: ['conversations', 'read'],
      query: skipLimitQuery({ defaultLimit: 100, maxLimit: 1000 }).extend({
        user_id: UserIdQuery.shape.user_id,
        conversation_id: ConversationId.optional(),
        sender_id: UserId.optional(),
        role: f.role.optional(),
        message_type: f.messageType.optional(),
        search: z.string().min(1).max(1000).optional().describe('Words of the content: messages containing every word (case- and accent-insensitive, English stemming)'),
        tags: commaList.pipe(f.tags).optional().describe('Comma-separated: messages having every listed tag'),
        sort_by: z.enum(MESSAGE_SORT_FIELDS).default('created_at'),
        sort_order: z.enum(['asc', 'desc']).default('desc'),
        cursor: z.string().min(1).max(2000).optional().describe('next_cursor of the previous page; takes precedence over skip'),
      }),
      status: 200,
      response: offsetEnvelope(MessageRecord),
      errors: [403, 404],
      handle: async ({ query, scope, send }) => {
        const page = await send(messages.listMessages, {
          ...actingOwner(scope, query.user_id, WITH_COLLECTIONS),
          skip: query.skip,
          limit: query.limit,
          sortBy: query.sort_by,
          sortOrder: query.sort_order,
          conversationId: query.conversation_id,
          senderId: query.sender_id,
          role: query.role,
          messageType: query.message_type,
          search: query.search,
          tags: query.tags?.length ? query.tags : undefined,
          cursor: query.cursor,
        });
        return query.cursor
          ? cursorOffsetPage({ items: page.items, total: page.total, limit: query.limit, nextCursor: page.nextCursor })
          : offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit, nextCursor: page.nextCursor });
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/messages/:message_id',
      operationId: 'get_message',
      summary: 'Get a message',
      permission: ['conversations', 'read'],
      params: MessageParams,
      query: UserIdQuery,
      status: 200,
      response: MessageRecord,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => send(messages.getMessage, { ...actingOwner(scope, query.user_id, WITH_COLLECTIONS), messageId: params.message_id }),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/v1/messages/:message_id',
      operationId: 'update_message',
      summary: 'Edit a message: new content makes an edited sibling on a new branch (the active one); tags, meta_data, tool_calls, attachments change in place',
      permission: ['conversations', 'write'],
      params: MessageParams,
      query: UserIdQuery,
      body: z
        .object({ ...body, content: body.content.optional() })
        .refine((fields) => Object.values(fields).some((value) => value !== undefined && value !== null), { message: 'Give at least one field to change' }),
      status: 200,
      response: MessageRecord,
      errors: [403, 404, 409],
      handle: async ({ params, query, body: input, scope, send }) => {
        const { message } = await send(messages.updateMessage, { ...actingOwner(scope, query.user_id, WITH_COLLECTIONS), messageId: params.message_id, ...messageFields(input) });
        return message;
      },
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/messages/:message_id',
      operationId: 'delete_message',
      summary: 'Permanently delete a message and its replies',
      permission: ['conversations', 'write'],
      params: MessageParams,
      query: UserIdQuery,
      status: 200,
      response: DeletedResponse,
      accepted: ERASURE_UNDER_WAY,
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const { deletedMessages, erasing } = await send(messages.deleteMessage, { ...actingOwner(scope, query.user_id, WITH_COLLECTIONS), messageId: params.message_id });
        if (erasing === true) return new AcceptedReply({ id: params.message_id, message: 'Message deleted; its erasure is under way', deleted_messages: deletedMessages });
        return { id: params.message_id, message: 'Message deleted permanently', deleted_messages: deletedMessages };
      },
    }),
  ];
}
