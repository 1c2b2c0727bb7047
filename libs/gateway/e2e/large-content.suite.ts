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
  });
}
