import { describeWithModels } from '@lore/platform/embeddings/contract';
import { call, unique, type LoreUnderTest, type Reply } from './e2e-client';
import { addContent, createCollection, locs, TOPICS, waitCompleted, type Topic } from './knowledge-fixtures';
import { conversation, idsOf, person, say, type Person } from './conversations.suite';

/** The next turn's context (needs the embedding model: memories and passages are searched by meaning). */
export function describeConversationContext(lore: () => LoreUnderTest): void {
  describeWithModels('conversation context', () => {
    let alice: Person;
    let bob: Person;
    let topics: any;
    let other: any;
    const contentOf = {} as Record<Topic, string>;
    let otherContent: string;
    const context = (token: string, id: string, body: Record<string, unknown> = {}, query = ''): Promise<Reply> => call(lore(), 'POST', `/api/v1/conversations/${id}/context${query}`, { token, body });

    beforeAll(async () => {
      const workspace = unique('ws');
      alice = await person(lore(), workspace);
      bob = await person(lore(), workspace);
      for (const memory of ['I am allergic to peanuts', 'I love hiking in the Alps', 'My cat is called Miso']) {
        expect((await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory, topics: ['prefs'] } })).status).toBe(201);
      }
      expect((await call(lore(), 'POST', '/api/v1/memories', { token: bob.token, body: { memory: 'Bob is allergic to peanuts and shellfish' } })).status).toBe(201);
      topics = await createCollection(lore(), alice.token, { name: 'Topics' });
      for (const [name, topic] of Object.entries(TOPICS)) {
        contentOf[name as Topic] = (await addContent(lore(), alice.token, { collection_id: topics.id, name, text: topic.text, metadata: topic.metadata, source: topic.source })).id;
      }
      other = await createCollection(lore(), alice.token, { name: 'Other' });
      otherContent = (await addContent(lore(), alice.token, { collection_id: other.id, name: 'descaling', text: 'Descale a coffee machine monthly with vinegar or citric acid.', source: 'https://example.test/descale' })).id;
      for (const id of [...Object.values(contentOf), otherContent]) await waitCompleted(lore(), alice.token, id);
    }, 90_000);

    it('gives the active path, the owner\'s memories for the last user message, and passages of the conversation\'s collections', async () => {
      const conv = await conversation(lore(), alice.token, { collection_ids: [topics.id] });
      const u1 = await say(lore(), alice.token, conv.id, { content: 'Hello, I need some help.' });
      const a1 = await say(lore(), alice.token, conv.id, { content: 'Sure, what do you need?', role: 'assistant', sender_id: 'bot' });
      await say(lore(), alice.token, conv.id, { content: 'OFFBRANCHWORD tell me about marathons', parent_message_id: a1.id });
      const u2 = await say(lore(), alice.token, conv.id, { content: 'Which nuts make me ill?', parent_message_id: a1.id });
      const reply = await context(alice.token, conv.id);
      expect(reply.status).toBe(200);
      const body = reply.body;
      expect(body).toMatchObject({ conversation_id: conv.id, query: u2.content, max_tokens: 2000, warnings: [], omitted: { messages: 0, memories: 0, chunks: 0 } });
      expect(idsOf(body.messages)).toEqual([u1.id, a1.id, u2.id]);
      expect(body.messages[1]).toMatchObject({ role: 'assistant', sender_id: 'bot', content: 'Sure, what do you need?' });
      for (const m of body.messages) expect(m.tokens).toBeGreaterThan(0);
      expect(body.context).not.toContain('OFFBRANCHWORD');
      expect(body.context).toContain('Which nuts make me ill?');

      const memories = body.memories.map((m: { memory: string }) => m.memory);
      expect(memories[0]).toBe('I am allergic to peanuts');
      expect(memories).not.toContain('Bob is allergic to peanuts and shellfish');
      expect(body.memories[0]).toMatchObject({ source: 'memory', topics: ['prefs'], memory_id: expect.any(String), score: expect.any(Number) });
      expect(body.context).toContain('I am allergic to peanuts');

      // Passages of the conversation's collection, best first, with their source.
      const sources = Object.values(TOPICS).map((t) => t.source as string);
      expect(body.chunks.length).toBeGreaterThan(0);
      for (const chunk of body.chunks) {
        expect(chunk).toMatchObject({ collection_id: topics.id, chunk_id: expect.any(String), score: expect.any(Number), tokens: expect.any(Number) });
        expect(Object.values(contentOf)).toContain(chunk.content_id);
        expect(sources).toContain(chunk.source);
        expect(body.context).toContain(chunk.content);
      }
      const scores = body.chunks.map((c: { score: number }) => c.score);
      expect([...scores].sort((a, b) => b - a)).toEqual(scores);
      expect(body.total_tokens).toBeGreaterThan(0);
      expect(body.total_tokens).toBeLessThanOrEqual(body.max_tokens);
      expect(body.tokenizer).toMatchObject({ model: expect.any(String), exact: expect.any(Boolean) });
      expect(typeof body.execution_time_ms).toBe('number');

      // An explicit query ranks instead of the last user message; limits apply.
      const hiking = await context(alice.token, conv.id, { query: 'mountain walking holidays', memory_limit: 1, chunk_limit: 0, message_limit: 1 });
      expect(hiking.body.query).toBe('mountain walking holidays');
      expect(hiking.body.memories.map((m: { memory: string }) => m.memory)).toEqual(['I love hiking in the Alps']);
      expect(hiking.body.chunks).toEqual([]);
      expect(idsOf(hiking.body.messages)).toEqual([u2.id]);
      const coffee = await context(alice.token, conv.id, { query: 'how often does the espresso machine need descaling', memory_limit: 0, chunk_limit: 2 });
      expect(coffee.body.memories).toEqual([]);
      expect(coffee.body.chunks.length).toBeLessThanOrEqual(2);
      expect(coffee.body.chunks[0]).toMatchObject({ content_id: contentOf.coffee, collection_id: topics.id, source: TOPICS.coffee.source, content: TOPICS.coffee.text, content_name: 'coffee', metadata: { topic: 'coffee' } });
      expect(coffee.body.context).toContain('espresso machine needs descaling');
    });

    it('stays within max_tokens, counting what it left out', async () => {
      const conv = await conversation(lore(), alice.token, { collection_ids: [topics.id] });
      for (let i = 0; i < 6; i++) {
        await say(lore(), alice.token, conv.id, { content: `Message number ${i}: ${'a fairly long sentence about coffee and espresso machines '.repeat(4)}`, role: i % 2 ? 'assistant' : 'user' });
      }
      const full = await context(alice.token, conv.id, { max_tokens: 32_000 });
      expect(full.body.omitted).toEqual({ messages: 0, memories: 0, chunks: 0 });
      for (const max of [1, 40, 150, 400]) {
        const reply = await context(alice.token, conv.id, { max_tokens: max });
        expect(reply.status).toBe(200);
        const { body } = reply;
        expect({ max, within: body.total_tokens <= max }).toEqual({ max, within: true });
        expect(body.max_tokens).toBe(max);
        expect(body.messages.length + body.omitted.messages).toBe(full.body.messages.length);
        expect(body.memories.length + body.omitted.memories).toBe(full.body.memories.length);
        expect(body.chunks.length + body.omitted.chunks).toBe(full.body.chunks.length);
        expect(body.omitted.messages + body.omitted.memories + body.omitted.chunks).toBeGreaterThan(0);
        // What is kept of the conversation is its end, contiguous.
        expect(idsOf(body.messages)).toEqual(idsOf(full.body.messages).slice(full.body.messages.length - body.messages.length));
      }
      for (const bad of [{ max_tokens: 0 }, { max_tokens: 32_001 }, { memory_limit: 51 }, { chunk_limit: -1 }, { message_limit: 1001 }, { query: '' }]) {
        const reply = await context(alice.token, conv.id, bad);
        expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
        expect(locs(reply)).toContainEqual(['body', Object.keys(bad)[0] as string]);
      }
    });

    it('searches only the collections an API key may use, naming the others in warnings', async () => {
      const conv = await conversation(lore(), alice.token, { collection_ids: [topics.id, other.id] });
      await say(lore(), alice.token, conv.id, { content: 'How do I descale a coffee machine?' });
      const unrestricted = await context(alice.token, conv.id);
      expect(unrestricted.body.warnings).toEqual([]);
      expect(new Set(unrestricted.body.chunks.map((c: { collection_id: string }) => c.collection_id))).toEqual(new Set([topics.id, other.id]));

      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'scoped', permissions: ['conversations:read', 'collections:read', 'memories:read'], collections: [topics.id] } })).body.key;
      const scoped = await context(key, conv.id, {}, `?user_id=${alice.id}`);
      expect(scoped.status).toBe(200);
      expect(scoped.body.chunks.length).toBeGreaterThan(0);
      expect(scoped.body.chunks.every((c: { collection_id: string }) => c.collection_id === topics.id)).toBe(true);
      expect(scoped.body.warnings).toHaveLength(1);
      expect(scoped.body.warnings[0]).toContain(other.id);
      expect(JSON.stringify(scoped.body)).not.toContain('vinegar');
    });

    it('draws on memories and passages only with the grants to read them', async () => {
      const conv = await conversation(lore(), alice.token, { collection_ids: [topics.id] });
      await say(lore(), alice.token, conv.id, { content: 'Am I allergic to anything?' });
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'chat only', permissions: ['conversations:read', 'conversations:write'] } })).body.key;
      const reply = await context(key, conv.id, {}, `?user_id=${alice.id}`);
      expect(reply.status).toBe(200);
      expect(reply.body.memories).toEqual([]);
      expect(reply.body.chunks).toEqual([]);
      expect(reply.body.warnings).toEqual(['memories not searched: the API key lacks memories:read', 'passages not searched: the API key lacks collections:read']);
      expect(JSON.stringify(reply.body)).not.toContain('peanuts');
      const named = await call(lore(), 'POST', `/api/v1/conversations?user_id=${alice.id}`, { token: key, body: { collection_ids: [topics.id] } });
      expect(named.status).toBe(403);
    });

    it('is the owner\'s only: another user gets 404', async () => {
      const conv = await conversation(lore(), alice.token);
      await say(lore(), alice.token, conv.id, { content: 'private words' });
      expect((await context(bob.token, conv.id)).status).toBe(404);
      expect((await context(alice.token, unique('conv'))).status).toBe(404);
      const empty = await context(alice.token, (await conversation(lore(), alice.token)).id);
      expect(empty.status).toBe(200);
      expect(empty.body).toMatchObject({ query: null, messages: [], memories: [], chunks: [], context: '', omitted: { messages: 0, memories: 0, chunks: 0 } });
    });
  });
}
