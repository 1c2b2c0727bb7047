import { unwrap, type LoreHttp } from '../core/http';
import { cursorItems, offsetItems } from '../core/pagination';
import type { BodyOf, Filters, QueryOf, ReplyOf, Schemas } from '../core/types';

export type Conversation = Schemas['ConversationRecord'];
export type Message = Schemas['MessageRecord'];
export type ConversationContext = Schemas['ConversationContext'];

/** Who an API-key caller acts for (`user_id`); a JWT caller is its own `sub`. */
export interface ActingFor {
  readonly user_id?: string;
}

/** Conversations with branching message trees, and the context for an assistant's next turn. */
export class Conversations {
  constructor(private readonly http: LoreHttp) {}

  create(body: BodyOf<'create_conversation'>): Promise<Conversation> {
    return unwrap(this.http.api.POST('/api/v1/conversations', { body }));
  }

  get(conversationId: string, query: QueryOf<'get_conversation'> = {}): Promise<Conversation> {
    return unwrap(this.http.api.GET('/api/v1/conversations/{conversation_id}', { params: { path: { conversation_id: conversationId }, query } }));
  }

  update(conversationId: string, body: BodyOf<'update_conversation'>, query: QueryOf<'update_conversation'> = {}): Promise<Conversation> {
    return unwrap(this.http.api.PATCH('/api/v1/conversations/{conversation_id}', { params: { path: { conversation_id: conversationId }, query }, body }));
  }

  delete(conversationId: string, query: QueryOf<'delete_conversation'> = {}): Promise<ReplyOf<'delete_conversation'>> {
    return unwrap(this.http.api.DELETE('/api/v1/conversations/{conversation_id}', { params: { path: { conversation_id: conversationId }, query } }));
  }

  list(query: QueryOf<'list_conversations'> = {}): Promise<ReplyOf<'list_conversations'>> {
    return unwrap(this.http.api.GET('/api/v1/conversations', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_conversations'>> = {}): AsyncGenerator<Conversation, void, undefined> {
    return cursorItems(async (cursor) => {
      const page = await this.list({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
      return { items: page.conversations, nextCursor: page.next_cursor, hasMore: page.has_more };
    });
  }

  /** The record, every message of every branch and the active path, as JSON. */
  export(conversationId: string, query: ActingFor = {}): Promise<ReplyOf<'export_conversation'>> {
    // The operation also answers Markdown (`format=markdown`), so its generated type is a union; JSON is asked for here.
    return unwrap(this.http.api.GET('/api/v1/conversations/{conversation_id}/export', { params: { path: { conversation_id: conversationId }, query: { ...query, format: 'json' } } })) as Promise<ReplyOf<'export_conversation'>>;
  }

  /** The prompt-ready context of the next turn: messages, memories and passages within a token budget. A read: repeated after a 503. */
  context(conversationId: string, body: BodyOf<'conversation_context'> = {}, query: ActingFor = {}): Promise<ConversationContext> {
    return unwrap(this.http.api.POST('/api/v1/conversations/{conversation_id}/context', { params: { path: { conversation_id: conversationId }, query }, body, fetch: this.http.idempotent }));
  }

  /**
   * Appends a message. It always carries a `client_message_id` (a random one unless given),
   * which makes the append idempotent: the API answers a repeat with the first message, so
   * the client repeats it safely after a 503 or a lost connection. Two calls are two messages,
   * even with the same text; one call is one message, however often it is sent.
   */
  append(conversationId: string, body: BodyOf<'append_message'>, query: ActingFor = {}): Promise<Message> {
    const withId = { ...body, client_message_id: body.client_message_id ?? crypto.randomUUID() };
    return unwrap(this.http.api.POST('/api/v1/conversations/{conversation_id}/messages', { params: { path: { conversation_id: conversationId }, query }, body: withId, fetch: this.http.idempotent }));
  }

  /** One page of the active path (or of every branch with `include_branches`). */
  messages(conversationId: string, query: QueryOf<'list_conversation_messages'> = {}): Promise<ReplyOf<'list_conversation_messages'>> {
    return unwrap(this.http.api.GET('/api/v1/conversations/{conversation_id}/messages', { params: { path: { conversation_id: conversationId }, query } }));
  }

  iterateMessages(conversationId: string, filters: Filters<QueryOf<'list_conversation_messages'>> = {}): AsyncGenerator<Message, void, undefined> {
    return offsetItems(async (skip) => {
      const page = await this.messages(conversationId, { ...filters, skip });
      return { items: page.data, hasMore: page.has_more };
    });
  }
}

/** Messages across conversations (`/api/v1/messages`): list and search, read, edit, delete. */
export class Messages {
  constructor(private readonly http: LoreHttp) {}

  list(query: QueryOf<'list_messages'> = {}): Promise<ReplyOf<'list_messages'>> {
    return unwrap(this.http.api.GET('/api/v1/messages', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_messages'>> = {}): AsyncGenerator<Message, void, undefined> {
    return cursorItems(async (cursor) => {
      const page = await this.list({ ...filters, ...(cursor === undefined ? {} : { cursor }) });
      return { items: page.data, nextCursor: page.next_cursor, hasMore: page.has_more };
    });
  }

  get(messageId: string, query: QueryOf<'get_message'> = {}): Promise<Message> {
    return unwrap(this.http.api.GET('/api/v1/messages/{message_id}', { params: { path: { message_id: messageId }, query } }));
  }

  /** New `content` makes an edited sibling (the answer); tags and metadata change in place. */
  update(messageId: string, body: BodyOf<'update_message'>, query: QueryOf<'update_message'> = {}): Promise<Message> {
    return unwrap(this.http.api.PATCH('/api/v1/messages/{message_id}', { params: { path: { message_id: messageId }, query }, body }));
  }

  /** Deletes the message and its replies permanently. */
  delete(messageId: string, query: QueryOf<'delete_message'> = {}): Promise<ReplyOf<'delete_message'>> {
    return unwrap(this.http.api.DELETE('/api/v1/messages/{message_id}', { params: { path: { message_id: messageId }, query } }));
  }
}
