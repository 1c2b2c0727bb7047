import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { LoreApiError, type LoreClient } from '@lore/client';

/** How many collections `search_knowledge` searches when it is not told which. */
const MAX_COLLECTIONS_SEARCHED = 20;

const userId = z.string().min(1).optional().describe('The user to act for. An API key names it (a key acts for its creator when omitted, where the API allows that); a JWT caller is its own user.');

/**
 * Lore as MCP tools. Every tool is one or a few calls of the TypeScript SDK with the caller's
 * own credential, so the API decides everything (permissions, a key's collections, whose
 * memories and conversations): the server adds no rule of its own. An error answer of the API
 * becomes a tool result with `isError` and the API's detail, which the model can read and act
 * on; malformed arguments are JSON-RPC errors from the SDK.
 */
export function createLoreMcpServer(lore: LoreClient, info: { version: string } = { version: '0.1.0' }): McpServer {
  const server = new McpServer({ name: 'lore', version: info.version });

  server.registerTool(
    'search_knowledge',
    {
      title: 'Search knowledge',
      description: 'Searches the chunks of Lore collections by meaning and keywords (hybrid by default). Without collection_ids, searches every collection the credential can see (up to 20) and merges the results by score.',
      inputSchema: {
        query: z.string().min(1).describe('What to look for'),
        collection_ids: z.array(z.string().min(1)).max(MAX_COLLECTIONS_SEARCHED).optional().describe('Collections to search (see list_collections)'),
        search_type: z.enum(['hybrid', 'vector', 'keyword']).optional(),
        max_results: z.number().int().min(1).max(50).optional().describe('Default 5'),
        rerank_provider: z.string().min(1).max(50).optional().describe("Re-rank each collection's hits with this configured reranker (local, cohere, jina, tei, vllm); default: each collection's own setting"),
      },
      annotations: { readOnlyHint: true },
    },
    ({ query, collection_ids, search_type, max_results, rerank_provider }) =>
      answer(async () => {
        const limit = max_results ?? 5;
        const ids = collection_ids ?? (await lore.collections.list({ limit: MAX_COLLECTIONS_SEARCHED })).data.map((c) => c.id);
        const searches = await Promise.all(ids.map((collection_id) => lore.collections.search({ query, collection_id, max_results: limit, ...(search_type === undefined ? {} : { search_type }), ...(rerank_provider === undefined ? {} : { rerank: { provider: rerank_provider } }) })));
        const results = searches
          .flatMap((s, i) => s.results.map((r) => ({ collection_id: ids[i], ...r })))
          .sort((a, b) => b.score - a.score)
          .slice(0, limit)
          .map(({ collection_id, content_id, content_name, chunk_id, content, score, scores, metadata }) => ({ collection_id, content_id, content_name, chunk_id, score, scores, content, metadata }));
        return { query, collections_searched: ids.length, results };
      }),
  );

  server.registerTool(
    'list_collections',
    {
      title: 'List collections',
      description: 'Lists the knowledge collections the credential can see, newest first.',
      inputSchema: { search: z.string().min(1).optional().describe('Part of the name'), limit: z.number().int().min(1).max(100).optional() },
      annotations: { readOnlyHint: true },
    },
    ({ search, limit }) =>
      answer(async () => {
        const page = await lore.collections.list({ limit: limit ?? 50, ...(search === undefined ? {} : { search }) });
        return { total_count: page.total_count, collections: page.data.map(({ id, name, description, tags, stats }) => ({ id, name, description, tags, stats })) };
      }),
  );

  server.registerTool(
    'add_text_content',
    {
      title: 'Add text to a collection',
      description: 'Adds a text to a collection; Lore splits and embeds it in the background (status "new", then "processing", then "completed").',
      inputSchema: {
        collection_id: z.string().min(1),
        name: z.string().min(1).max(255),
        text: z.string().min(1),
        source: z.string().min(1).optional(),
        metadata: z.record(z.string(), z.unknown()).optional(),
      },
    },
    ({ collection_id, name, text, source, metadata }) =>
      answer(async () => {
        const content = await lore.contents.create({ collection_id, name, text, ...(source === undefined ? {} : { source }), ...(metadata === undefined ? {} : { metadata }) });
        return { id: content.id, collection_id: content.collection_id, name: content.name, status: content.status, size: content.size };
      }),
  );

  server.registerTool(
    'add_memory',
    {
      title: 'Remember',
      description: 'Stores a memory about a user (a fact, a preference) for later turns.',
      inputSchema: { memory: z.string().min(1), topics: z.array(z.string().min(1)).optional(), user_id: userId },
    },
    ({ memory, topics, user_id }) =>
      answer(async () => {
        const created = await lore.memories.create({ memory, ...(topics === undefined ? {} : { topics }), ...(user_id === undefined ? {} : { user_id }) });
        return created.memory;
      }),
  );

  server.registerTool(
    'search_memories',
    {
      title: 'Search memories',
      description: "Searches one user's memories by meaning and keywords.",
      inputSchema: { query: z.string().min(1), limit: z.number().int().min(1).max(100).optional(), user_id: userId },
      annotations: { readOnlyHint: true },
    },
    ({ query, limit, user_id }) =>
      answer(async () => {
        const found = await lore.memories.search({ query, ...(limit === undefined ? {} : { limit }), ...(user_id === undefined ? {} : { user_id }) });
        return { results: found.results.map(({ memory_id, memory, topics, score, created_at }) => ({ memory_id, memory, topics, score, created_at })) };
      }),
  );

  server.registerTool(
    'delete_memory',
    {
      title: 'Forget a memory',
      description: 'Deletes a memory permanently.',
      inputSchema: { memory_id: z.string().min(1), user_id: userId },
      annotations: { destructiveHint: true, idempotentHint: false },
    },
    ({ memory_id, user_id }) => answer(() => lore.memories.delete(memory_id, user_id === undefined ? {} : { user_id })),
  );

  server.registerTool(
    'get_conversation_context',
    {
      title: "Context for a conversation's next turn",
      description: "Builds the prompt-ready context of a conversation's next turn within a token budget: its recent messages, the user's relevant memories and passages from the conversation's collections. The `context` field is the text to give the model.",
      inputSchema: {
        conversation_id: z.string().min(1),
        query: z.string().min(1).optional().describe('Default: the last user message'),
        max_tokens: z.number().int().min(1).optional(),
        user_id: userId,
      },
      annotations: { readOnlyHint: true },
    },
    ({ conversation_id, query, max_tokens, user_id }) =>
      answer(async () => {
        const context = await lore.conversations.context(conversation_id, { ...(query === undefined ? {} : { query }), ...(max_tokens === undefined ? {} : { max_tokens }) }, user_id === undefined ? {} : { user_id });
        const { context: text, total_tokens, max_tokens: budget, warnings, memories, chunks, messages } = context;
        return { context: text, total_tokens, max_tokens: budget, warnings, counts: { messages: messages.length, memories: memories.length, chunks: chunks.length } };
      }),
  );

  server.registerTool(
    'append_message',
    {
      title: 'Append a message',
      description: 'Appends a message to a conversation (at the end of its active path).',
      inputSchema: {
        conversation_id: z.string().min(1),
        content: z.string().min(1),
        role: z.string().min(1).optional().describe('Default "user"; also "assistant", "system", "tool"…'),
        user_id: userId,
      },
    },
    ({ conversation_id, content, role, user_id }) =>
      answer(async () => {
        const message = await lore.conversations.append(conversation_id, { content, ...(role === undefined ? {} : { role }) }, user_id === undefined ? {} : { user_id });
        return { id: message.id, conversation_id: message.conversation_id, role: message.role, parent_message_id: message.parent_message_id, created_at: message.created_at };
      }),
  );

  return server;
}

/** A tool's result as JSON text, or the API's refusal as an `isError` result the model can read. */
async function answer(work: () => Promise<unknown>): Promise<CallToolResult> {
  try {
    const result = await work();
    return { content: [{ type: 'text', text: JSON.stringify(result, null, 2) }] };
  } catch (error) {
    if (!(error instanceof LoreApiError)) throw error;
    return { isError: true, content: [{ type: 'text', text: JSON.stringify({ status: error.status, detail: error.detail }) }] };
  }
}
