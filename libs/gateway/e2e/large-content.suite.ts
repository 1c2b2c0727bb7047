import { call, mintJwt, unique, upload, type LoreUnderTest } from './e2e-client';
import { waitCompleted } from './knowledge-fixtures';

/**
 * Texts over 1 MiB: more than NATS carries and EventStoreDB appends in one message by
 * default, so they travel and are stored in parts. Mostly whitespace, so that they are cheap
 * to embed (a few chunks) while their bytes are many.
 */
export function describeLargeContent(lore: () => LoreUnderTest): void {
  describe('large contents', () => {
    it('takes a 2.5 MB JSON text and a 2.5 MB file, and finds their first and last words', async () => {
      const token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
      const collection = (await call(lore(), 'POST', '/api/v1/collections', { token, body: { name: 'large' } })).body;
      const first = unique('openingword');
      const last = unique('closingword');
      const text = `${first} begins here.${' '.repeat(2_500_000)}${last} ends here.`;
      const created = await call(lore(), 'POST', '/api/v1/contents', { token, body: { collection_id: collection.id, name: 'big.txt', text } });
      expect(created.status).toBe(201);
      expect(created.body.size).toBe(Buffer.byteLength(text));
      const fileFirst = unique('fileopening');
      const uploaded = await upload(lore(), '/api/v1/contents', {
        token,
        file: { name: 'big.md', type: 'text/markdown', content: `${fileFirst} starts, café 😀.\n\n${' \n'.repeat(1_250_000)}\n\n${last} too.` },
        fields: { collection_id: collection.id },
      });
      expect(uploaded.status).toBe(201);
      for (const id of [created.body.id, uploaded.body.id]) expect(await waitCompleted(lore(), token, id)).toMatchObject({ status: 'completed' });
      const search = async (query: string) =>
        (await call(lore(), 'POST', '/api/v1/collections/search', { token, body: { collection_id: collection.id, query, search_type: 'keyword' } })).body.results.map((r: { content_id: string }) => r.content_id);
      expect(await search(first)).toEqual([created.body.id]);
      expect(await search(fileFirst)).toEqual([uploaded.body.id]);
      expect((await search(last)).sort()).toEqual([created.body.id, uploaded.body.id].sort());
    });

    it('lists 200 chunks with their vectors in one page (more than one transport message holds)', async () => {
      const token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
      const collection = (await call(lore(), 'POST', '/api/v1/collections', { token, body: { name: 'many chunks', settings: { chunk_size: 16, chunk_overlap: 0 } } })).body;
      // Two paragraphs of 8 tokens fill a chunk of 16.
      const text = Array.from({ length: 400 }, (_, i) => `Paragraph number ${i} talks about topic ${i}.`).join('\n\n');
      const created = await call(lore(), 'POST', '/api/v1/contents', { token, body: { collection_id: collection.id, name: 'many', text } });
      const settled = await waitCompleted(lore(), token, created.body.id);
      expect(settled.status).toBe('completed');
      expect(settled.chunk_count).toBeGreaterThanOrEqual(150);
      const page = await call(lore(), 'GET', `/api/v1/chunks?collection_id=${collection.id}&limit=500&include_embedding=true`, { token });
      expect(page.status).toBe(200);
      expect(page.body.chunks.map((c: { chunk_index: number }) => c.chunk_index)).toEqual(Array.from({ length: settled.chunk_count }, (_, i) => i));
      expect(page.body.chunks.every((c: { embedding: number[] }) => c.embedding.length === 384)).toBe(true);
      expect(page.body).toMatchObject({ next_cursor: null, has_more: false });
      const firstTwo = await call(lore(), 'GET', `/chunks?collection_id=${collection.id}&limit=2`, { token });
      expect(firstTwo.body.chunks.map((c: { chunk_index: number }) => c.chunk_index)).toEqual([0, 1]);
      const rest = await call(lore(), 'GET', `/chunks?collection_id=${collection.id}&limit=500&cursor=${encodeURIComponent(firstTwo.body.next_cursor)}`, { token });
      expect(rest.body.chunks).toHaveLength(settled.chunk_count - 2);
    });

    it('answers reads larger than one transport message: a conversation\'s messages and export, a memory list', async () => {
      const token = await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: unique('ws') });
      const conversation = (await call(lore(), 'POST', '/api/v1/conversations', { token, body: { title: 'long chat' } })).body;
      // 12 messages just under the 100,000-character limit: ~1.1 MB of messages, ~2.3 MB exported.
      const contents = Array.from({ length: 12 }, (_, i) => `${unique(`message${i}`)} ${'word '.repeat(19_000)}`);
      for (const [i, content] of contents.entries()) {
        const said = await call(lore(), 'POST', `/api/v1/conversations/${conversation.id}/messages`, { token, body: { content, role: i % 2 === 0 ? 'user' : 'assistant' } });
        expect(said.status).toBe(201);
      }
      const messages = await call(lore(), 'GET', `/api/v1/conversations/${conversation.id}/messages`, { token });
      expect(messages.status).toBe(200);
      expect(messages.body.data.map((m: { content: string }) => m.content)).toEqual(contents);
      const markdown = await call(lore(), 'GET', `/api/v1/conversations/${conversation.id}/export?format=markdown`, { token });
      expect(markdown.status).toBe(200);
      expect(markdown.body).toContain(contents[11]!.slice(0, 40));

      // 60 memories of 10,000 characters and 15 kB of metadata each: a list of ~1.5 MB.
      const memories = Array.from({ length: 60 }, (_, i) => `${unique(`memory${i}`)} ${'m'.repeat(9_900)}`);
      for (const memory of memories) {
        expect((await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory, metadata: { notes: 'n'.repeat(15_000) } } })).status).toBe(201);
      }
      const listed = await call(lore(), 'GET', '/api/v1/memories?limit=100', { token });
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((m: { memory: string }) => m.memory).sort()).toEqual([...memories].sort());
    });
  });
}
