import { z } from 'zod';
import { RerankScore } from '@lore/platform/kernel';
import { CONVERSATION_STATUSES, MEMORY_EXTRACTION_SETTINGS } from './conversations.config';

/** A conversation (SPEC §2.8 shows none; modelled on R2R, OpenAI Conversations and LangGraph threads). */
export const ConversationRecord = z
  .object({
    id: z.string(),
    workspace_id: z.string(),
    user_id: z.string().describe('Owner'),
    title: z.string().nullable(),
    status: z.enum(CONVERSATION_STATUSES),
    collection_ids: z.array(z.string()).describe('Collections the context endpoint searches'),
    memory_extraction: z
      .enum(MEMORY_EXTRACTION_SETTINGS)
      .describe("`after_user_turn`: memories are extracted from the conversation in the background after each user message (README, \"Memory extraction\")"),
    tags: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    message_count: z.number().int().describe('Messages on every branch'),
    last_message_at: z.string().nullable(),
    current_message_id: z.string().nullable().describe('Where the active path ends'),
    created_by: z.string().describe('`user:<sub>` or `api_key:<id>`'),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'ConversationRecord' });
export type ConversationRecord = z.infer<typeof ConversationRecord>;

/** A message (SPEC §2.5), with the id a client gave it and what it is an edit of. */
export const MessageRecord = z
  .object({
    id: z.string(),
    conversation_id: z.string(),
    sender_id: z.string(),
    owner_id: z.string().describe('The conversation owner'),
    workspace_id: z.string(),
    content: z.string(),
    role: z.string(),
    message_type: z.string(),
    tool_calls: z.array(z.record(z.string(), z.unknown())),
    tags: z.array(z.string()),
    checksum: z.string().describe('SHA-256 of the UTF-8 content, lower-case hex'),
    attachments: z.array(z.record(z.string(), z.unknown())),
    parent_message_id: z.string().nullable(),
    meta_data: z.record(z.string(), z.unknown()),
    client_message_id: z.string().nullable(),
    edit_of: z.string().nullable().describe('The message this one is an edited version of (its sibling)'),
    sent_at: z.string(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ id: 'MessageRecord' });
export type MessageRecord = z.infer<typeof MessageRecord>;

const Tokens = z.number().int().describe('Tokens, counted with the embedding model\'s tokenizer');

export const ContextMessage = z.object({
  id: z.string(),
  role: z.string(),
  sender_id: z.string(),
  content: z.string(),
  created_at: z.string(),
  tokens: Tokens,
});
/** Set when the passage or memory was re-ranked: the reranker's score and rank (`score` is then the reranker's too). */
const ContextRerank = RerankScore.nullable().describe('The reranker\'s score and rank, when re-ranked');
export const ContextMemory = z.object({ memory_id: z.string(), memory: z.string(), topics: z.array(z.string()), score: z.number(), rerank: ContextRerank, source: z.literal('memory'), tokens: Tokens });
export const ContextChunk = z.object({
  chunk_id: z.string(),
  content: z.string(),
  score: z.number(),
  rerank: ContextRerank,
  collection_id: z.string(),
  content_id: z.string(),
  content_name: z.string().nullable(),
  source: z.string().nullable(),
  metadata: z.record(z.string(), z.unknown()),
  tokens: Tokens,
});

/** What an assistant puts in its prompt for the next turn. */
export const ConversationContext = z
  .object({
    conversation_id: z.string(),
    query: z.string().nullable().describe('What memories and chunks were ranked against: the given query, else the last user message'),
    max_tokens: z.number().int(),
    total_tokens: z.number().int().describe('Tokens of `context`'),
    messages: z.array(ContextMessage).describe('The last messages of the active path, oldest first'),
    memories: z.array(ContextMemory),
    chunks: z.array(ContextChunk),
    omitted: z.object({ messages: z.number().int(), memories: z.number().int(), chunks: z.number().int() }).describe('Found but left out to stay within max_tokens'),
    warnings: z.array(z.string()).describe('Sources that could not be searched (a collection deleted or outside the key\'s scope, no embedding model)'),
    summary: z
      .object({
        through_message_id: z.string().describe('The summary covers the active path from its first message to this one'),
        message_count: z.number().int(),
        text: z.string(),
        model: z.string(),
        cached: z.boolean().describe('Read from the branch cache rather than asked of the model now'),
        tokens: Tokens,
      })
      .nullable()
      .describe('With `compact`: the chat model\'s summary of the older messages that did not fit, when it fits in what is left of the budget'),
    context: z.string().describe('The sections above, ready to put in a prompt'),
    tokenizer: z.object({ model: z.string(), exact: z.boolean() }),
    timings: z
      .object({ messages_ms: z.number(), memories_ms: z.number(), chunks_ms: z.number(), tokens_ms: z.number() })
      .describe('Where the time went: reading the conversation, memory search, passage search (the two run side by side), counting tokens'),
    execution_time_ms: z.number(),
  })
  .meta({ id: 'ConversationContext' });
export type ConversationContext = z.infer<typeof ConversationContext>;
