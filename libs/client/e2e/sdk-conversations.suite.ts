import { LoreClient, toArray } from '@lore/client';
import { freshUser, jwtFor, type LoreUnderTest } from './sdk-fixtures';

/** Conversations, messages (idempotent appends, edits, deletion), next-turn context and memories, through the SDK. */
export function describeSdkConversations(lore: () => LoreUnderTest): void {
  describe('SDK: conversations, messages, context, memories', () => {
    let client: LoreClient;
    let user: string;

    beforeAll(async () => {
      ({ client, user } = await freshUser(lore()));
    });

    it('appends idempotently: a repeated append with its client_message_id is the first message, a new call is a new message', async () => {
      const conversation = await client.conversations.create({ title: 'idempotency' });
      const first = await client.conversations.append(conversation.id, { content: 'hello', client_message_id: 'fixed-1' });
      const repeated = await client.conversations.append(conversation.id, { content: 'hello', client_message_id: 'fixed-1' });
      expect(repeated.id).toBe(first.id);
      // Without an id of the caller's, each call gets its own: two calls are two messages.
      const a = await client.conversations.append(conversation.id, { content: 'same words' });
      const b = await client.conversations.append(conversation.id, { content: 'same words' });
      expect(a.client_message_id).toEqual(expect.any(String));
      expect(b.id).not.toBe(a.id);
      expect((await client.conversations.get(conversation.id)).message_count).toBe(3);
    });

    it('repeats an append whose answer was lost after the server stored it, and the conversation holds it once', async () => {
      const conversation = await client.conversations.create({ title: 'lost answer' });
      let appends = 0;
      const losing = new LoreClient({
        baseUrl: lore().url,
        token: await jwtFor(lore(), user, conversation.workspace_id),
        retry: { baseDelayMs: 10 },
        fetch: async (request) => {
          const response = await fetch(request);
          // The first append reaches the server and is stored; its answer never arrives.
          if (request.method === 'POST' && request.url.endsWith('/messages') && ++appends === 1) {
            await response.body?.cancel();
            throw new TypeError('fetch failed: connection reset');
          }
          return response;
        },
      });
      const message = await losing.conversations.append(conversation.id, { content: 'sent once' });
      expect(appends).toBe(2);
      expect((await client.conversations.get(conversation.id)).message_count).toBe(1);
      expect((await client.conversations.messages(conversation.id)).data.map((m) => m.id)).toEqual([message.id]);
    });

    it('creates, updates, lists and exports conversations; lists, edits and deletes messages', async () => {
      const conversation = await client.conversations.create({ title: 'walk', tags: ['sdk'] });
      const question = await client.conversations.append(conversation.id, { content: 'Which tea is grassy?' });
      const reply = await client.conversations.append(conversation.id, { content: 'Green tea.', role: 'assistant' });
      expect(await client.conversations.update(conversation.id, { title: 'tea talk' })).toMatchObject({ title: 'tea talk', current_message_id: reply.id });

      const path = await toArray(client.conversations.iterateMessages(conversation.id, { limit: 1 }));
      expect(path.map((m) => m.id)).toEqual([question.id, reply.id]);
      const mine = await toArray(client.conversations.iterate({ limit: 1 }));
      expect(mine.map((c) => c.id)).toContain(conversation.id);
      const searched = await toArray(client.messages.iterate({ search: 'grassy', limit: 1 }));
      expect(searched.map((m) => m.id)).toEqual([question.id]);

      const edited = await client.messages.update(reply.id, { content: 'Green tea, steamed.' });
      expect(edited).toMatchObject({ edit_of: reply.id, content: 'Green tea, steamed.' });
      expect(await client.messages.get(edited.id)).toMatchObject({ id: edited.id });
      const exported = await client.conversations.export(conversation.id);
      expect(exported.messages).toHaveLength(3);
      expect(exported.active_path).toEqual([question.id, edited.id]);

      expect(await client.messages.delete(edited.id)).toMatchObject({ deleted_messages: 1 });
      expect((await client.conversations.get(conversation.id)).current_message_id).toBe(question.id);
      await client.conversations.delete(conversation.id);
      await expect(client.conversations.get(conversation.id)).rejects.toMatchObject({ status: 404 });
    });

    it('keeps memories: create, read, replace, list by cursor, search, history, export, delete', async () => {
      const created = await client.memories.create({ memory: 'Prefers green tea in the morning', topics: ['drinks'] });
      const id = created.memory_id;
      await client.memories.create({ memory: 'Lives near a volcano', topics: ['home'] });
      await client.memories.create({ memory: 'Plays chess on Sundays', topics: ['games'] });
      expect(await client.memories.get(id)).toMatchObject({ memory: 'Prefers green tea in the morning', user_id: user });
      expect((await client.memories.replace(id, { memory: 'Prefers black coffee in the morning' })).new_memory).toMatchObject({ memory: 'Prefers black coffee in the morning' });
      const all = await toArray(client.memories.iterate({ limit: 1 }));
      expect(all).toHaveLength(3);
      const found = await client.memories.search({ query: 'coffee', limit: 1 });
      expect(found.results[0]?.memory_id).toBe(id);
      expect((await client.memories.history(id)).versions).toHaveLength(2);
      expect((await client.memories.export()).memories).toHaveLength(3);
      await client.memories.delete(id);
      await expect(client.memories.get(id)).rejects.toMatchObject({ status: 404 });
      expect(await client.memories.deleteAll({ user_id: user })).toMatchObject({ deleted_count: 2 });
    });

    it('builds the context of the next turn from the conversation, the memories and the collections', async () => {
      const collection = await client.collections.create({ name: 'context' });
      const content = await client.contents.create({ collection_id: collection.id, name: 'kettle', text: 'Brew green tea at 80 degrees for two minutes.' });
      await client.contents.waitUntilProcessed(content.id, { timeoutMs: 30_000 });
      await client.memories.create({ memory: 'Drinks green tea without sugar' });
      const conversation = await client.conversations.create({ collection_ids: [collection.id] });
      await client.conversations.append(conversation.id, { content: 'How should I brew green tea?' });
      const context = await client.conversations.context(conversation.id, { max_tokens: 500 });
      expect(context.query).toBe('How should I brew green tea?');
      expect(context.chunks.map((c) => c.content_id)).toContain(content.id);
      expect(context.memories.length).toBeGreaterThan(0);
      expect(context.context).toContain('80 degrees');
      expect(context.total_tokens).toBeLessThanOrEqual(500);
    });
  });
}
