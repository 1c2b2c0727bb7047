import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LoreClient } from '@lore/client';
import { freshUser, type LoreUnderTest } from './sdk-fixtures';

export const MCP_TOOLS = ['add_memory', 'add_text_content', 'append_message', 'delete_memory', 'get_conversation_context', 'list_collections', 'search_knowledge', 'search_memories'];

/** Connects the official MCP client over a transport. */
export async function mcpClient(transport: Transport): Promise<Client> {
  const client = new Client({ name: 'lore-tests', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** The gateway's `/mcp` with a credential. */
export function httpTransport(lore: LoreUnderTest, token: string): StreamableHTTPClientTransport {
  return new StreamableHTTPClientTransport(new URL(`${lore.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${token}` } } });
}

/** A tool's JSON answer (the tools answer JSON text). */
export function json(result: unknown): any {
  const content = (result as CallToolResult).content[0];
  if (content?.type !== 'text') throw new Error(`not a text result: ${JSON.stringify(result)}`);
  return JSON.parse(content.text);
}

/**
 * Two workspaces, each with an API key, and data the tools can find: the MCP server is
 * reached with one key and must never reach the other's data.
 */
export async function twoWorkspaces(lore: LoreUnderTest): Promise<{ mine: Workspace; theirs: Workspace }> {
  return { mine: await workspace(lore, 'Prefers green tea', 'Kettles boil water at one hundred degrees.'), theirs: await workspace(lore, 'Secret: plays the tuba', 'The tuba is the largest brass instrument.') };
}

export interface Workspace {
  readonly jwt: LoreClient;
  readonly key: string;
  readonly user: string;
  readonly collectionId: string;
  readonly conversationId: string;
  readonly memoryId: string;
}

async function workspace(lore: LoreUnderTest, memory: string, text: string): Promise<Workspace> {
  const { client, user } = await freshUser(lore);
  const collection = await client.collections.create({ name: `notes of ${user}` });
  const content = await client.contents.create({ collection_id: collection.id, name: 'note', text });
  await client.contents.waitUntilProcessed(content.id, { timeoutMs: 30_000 });
  const created = await client.memories.create({ memory });
  const conversation = await client.conversations.create({ title: 'chat', collection_ids: [collection.id] });
  const key = await client.apiKeys.create({ label: 'mcp', permissions: ['collections:read', 'collections:write', 'memories:read', 'memories:write', 'conversations:read', 'conversations:write'] });
  return { jwt: client, key: key.key, user, collectionId: collection.id, conversationId: conversation.id, memoryId: created.memory_id };
}

/** The MCP server's tools through a transport: each tool, its errors, and workspace isolation. */
export function describeMcpTools(what: string, lore: () => LoreUnderTest, connect: (lore: LoreUnderTest, key: string) => Promise<Client>): void {
  describe(`MCP server (${what})`, () => {
    let mine: Workspace;
    let theirs: Workspace;
    let mcp: Client;

    beforeAll(async () => {
      ({ mine, theirs } = await twoWorkspaces(lore()));
      mcp = await connect(lore(), mine.key);
    }, 60_000);
    afterAll(() => mcp?.close());

    it('lists its tools with input schemas', async () => {
      const { tools } = await mcp.listTools();
      expect(tools.map((t) => t.name).sort()).toEqual(MCP_TOOLS);
      for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
    });

    it('calls every tool through the API with the caller key', async () => {
      const collections = json(await mcp.callTool({ name: 'list_collections', arguments: {} }));
      expect(collections.collections.map((c: { id: string }) => c.id)).toEqual([mine.collectionId]);

      const found = json(await mcp.callTool({ name: 'search_knowledge', arguments: { query: 'boiling water kettle' } }));
      expect(found.results[0]).toMatchObject({ collection_id: mine.collectionId, content_name: 'note' });
      // rerank_provider reaches the search: one this Lore does not have is the API's 422, readable by the model.
      const unknownReranker = await mcp.callTool({ name: 'search_knowledge', arguments: { query: 'boiling water kettle', rerank_provider: 'nobody' } });
      expect(unknownReranker.isError).toBe(true);
      expect(json(unknownReranker)).toMatchObject({ status: 422 });

      const added = json(await mcp.callTool({ name: 'add_text_content', arguments: { collection_id: mine.collectionId, name: 'added', text: 'Added through MCP.' } }));
      expect(added).toMatchObject({ collection_id: mine.collectionId, name: 'added' });
      expect(await mine.jwt.contents.get(added.id)).toMatchObject({ id: added.id });

      const remembered = json(await mcp.callTool({ name: 'add_memory', arguments: { memory: 'Likes oolong too', user_id: mine.user } }));
      expect(remembered).toMatchObject({ user_id: mine.user, memory: 'Likes oolong too' });
      const memories = json(await mcp.callTool({ name: 'search_memories', arguments: { query: 'tea', user_id: mine.user } }));
      expect(memories.results.map((m: { memory_id: string }) => m.memory_id)).toEqual(expect.arrayContaining([mine.memoryId, remembered.memory_id]));
      json(await mcp.callTool({ name: 'delete_memory', arguments: { memory_id: remembered.memory_id, user_id: mine.user } }));
      await expect(mine.jwt.memories.get(remembered.memory_id)).rejects.toMatchObject({ status: 404 });

      const message = json(await mcp.callTool({ name: 'append_message', arguments: { conversation_id: mine.conversationId, content: 'How hot does a kettle get?', user_id: mine.user } }));
      expect(message).toMatchObject({ conversation_id: mine.conversationId, role: 'user' });
      const context = json(await mcp.callTool({ name: 'get_conversation_context', arguments: { conversation_id: mine.conversationId, user_id: mine.user } }));
      expect(context.context).toContain('one hundred degrees');
      expect(context.context).toContain('How hot does a kettle get?');
    });

    it("answers the API's refusals as tool errors, and malformed calls as JSON-RPC errors", async () => {
      const missing = await mcp.callTool({ name: 'delete_memory', arguments: { memory_id: 'mem_missing', user_id: mine.user } });
      expect(missing.isError).toBe(true);
      expect(json(missing)).toMatchObject({ status: 404 });
      const invalid = await mcp.callTool({ name: 'add_memory', arguments: { memory: 'x'.repeat(20_000), user_id: mine.user } });
      expect(invalid.isError).toBe(true);
      expect(json(invalid)).toMatchObject({ status: 422, detail: [expect.objectContaining({ loc: ['body', 'memory'] })] });
      // Calls the server cannot make sense of: the SDK answers them with the JSON-RPC error code (-32602 invalid params).
      const unknownTool = await mcp.callTool({ name: 'no_such_tool', arguments: {} });
      expect(unknownTool).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/-32602.*no_such_tool/) }] });
      const badArguments = await mcp.callTool({ name: 'search_memories', arguments: { limit: 'ten' } });
      expect(badArguments).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/-32602/) }] });
      // A method the server does not offer is a JSON-RPC error response.
      await expect(mcp.listResources()).rejects.toMatchObject({ code: -32601 });
    });

    it("never reaches another workspace's data", async () => {
      const theirCollection = await mcp.callTool({ name: 'search_knowledge', arguments: { query: 'tuba', collection_ids: [theirs.collectionId] } });
      expect(theirCollection.isError).toBe(true);
      expect(json(theirCollection)).toMatchObject({ status: 404 });
      const everywhere = json(await mcp.callTool({ name: 'search_knowledge', arguments: { query: 'tuba brass instrument' } }));
      expect(everywhere.results.length).toBeGreaterThan(0);
      expect(JSON.stringify(everywhere.results)).not.toContain('tuba');
      for (const [name, args] of [
        ['delete_memory', { memory_id: theirs.memoryId, user_id: theirs.user }],
        ['get_conversation_context', { conversation_id: theirs.conversationId, user_id: theirs.user }],
        ['append_message', { conversation_id: theirs.conversationId, content: 'intrusion', user_id: theirs.user }],
        ['add_text_content', { collection_id: theirs.collectionId, name: 'x', text: 'intrusion' }],
        ['search_memories', { query: 'tuba', user_id: theirs.user }],
      ] as const) {
        const result = await mcp.callTool({ name, arguments: args });
        expect({ name, isError: result.isError }).toEqual({ name, isError: true });
      }
      // Their data is all still there.
      expect(await theirs.jwt.memories.get(theirs.memoryId)).toMatchObject({ memory: 'Secret: plays the tuba' });
      expect((await theirs.jwt.conversations.get(theirs.conversationId)).message_count).toBe(0);
    });
  });
}
