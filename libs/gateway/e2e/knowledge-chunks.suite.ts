import { call, unique, type LoreUnderTest } from './e2e-client';
import { owner, waitCompleted, createCollection, addContent, search, SEARCH_TYPES, nested, locs, type Owner } from './knowledge-fixtures';

/** Chunks over HTTP: cursor lists, embeddings, edits that re-embed, deletion (part of the knowledge suite). */
export function describeKnowledgeChunks(lore: () => LoreUnderTest): void {
  describe('chunks', () => {
    let me: Owner;
    let col: any;
    let long: any;
    let short: any;
    beforeAll(async () => {
      me = await owner(lore());
      col = await createCollection(lore(), me.token, { name: 'Chunky', settings: { chunk_size: 32, chunk_overlap: 4 } });
      const sentences = [
        'Rivers carve valleys over thousands of years.',
        'Glaciers grind mountains into fine silt and gravel.',
        'Volcanoes build islands from cooling lava flows.',
        'Wind shapes desert dunes into long crescent ridges.',
        'Ocean waves wear cliffs down into sandy beaches.',
        'Earthquakes lift coastlines and open deep rifts.',
      ];
      long = await addContent(lore(), me.token, { collection_id: col.id, name: 'geology', text: sentences.join(' '), metadata: { subject: 'geology' } });
      short = await addContent(lore(), me.token, { collection_id: col.id, name: 'short', text: 'Bees pollinate flowers.' });
      await waitCompleted(lore(), me.token, long.id);
      await waitCompleted(lore(), me.token, short.id);
    }, 60_000);

    it('lists chunks at /chunks and /api/v1/chunks, filtered by collection and content', async () => {
      for (const base of ['/chunks', '/api/v1/chunks']) {
        const all = await call(lore(), 'GET', `${base}?collection_id=${col.id}`, { token: me.token });
        expect(all.status).toBe(200);
        expect(all.body).toMatchObject({ next_cursor: null, has_more: false });
        const chunks = all.body.chunks as Array<Record<string, any>>;
        expect(chunks.length).toBeGreaterThanOrEqual(3);
        for (const chunk of chunks) {
          expect(chunk).toMatchObject({ id: expect.any(String), collection_id: col.id, content: expect.any(String), metadata: expect.any(Object), chunk_index: expect.any(Number), size_bytes: Buffer.byteLength(chunk.content) });
          expect(Date.parse(chunk.created_at)).not.toBeNaN();
          expect(chunk).not.toHaveProperty('embedding');
        }
        const ofLong = await call(lore(), 'GET', `${base}?content_id=${long.id}`, { token: me.token });
        expect(ofLong.body.chunks.length).toBeGreaterThanOrEqual(2);
        expect(ofLong.body.chunks.map((c: { chunk_index: number }) => c.chunk_index)).toEqual(ofLong.body.chunks.map((_: unknown, i: number) => i));
        expect(ofLong.body.chunks.every((c: { content_id: string }) => c.content_id === long.id)).toBe(true);
        const ofShort = await call(lore(), 'GET', `${base}?collection_id=${col.id}&content_id=${short.id}`, { token: me.token });
        expect(ofShort.body.chunks.map((c: { content: string }) => c.content)).toEqual(['Bees pollinate flowers.']);
        expect(chunks.length).toBe(ofLong.body.chunks.length + 1);
        expect((await call(lore(), 'GET', `${base}?collection_id=${unique('col')}`, { token: me.token })).status).toBe(404);
      }
    });

    it('walks cursor pages to the end without duplicates or gaps', async () => {
      const all = (await call(lore(), 'GET', `/chunks?collection_id=${col.id}`, { token: me.token })).body.chunks.map((c: { id: string }) => c.id);
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 50; page++) {
        const query: string = `/chunks?collection_id=${col.id}&limit=1${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
        const reply = await call(lore(), 'GET', query, { token: me.token });
        expect(reply.status).toBe(200);
        expect(reply.body.chunks).toHaveLength(1);
        seen.push(reply.body.chunks[0].id);
        expect(reply.body.has_more).toBe(reply.body.next_cursor !== null);
        cursor = reply.body.next_cursor;
        if (cursor === null) break;
      }
      expect(cursor).toBeNull();
      expect(new Set(seen).size).toBe(seen.length);
      expect(seen).toEqual(all);
      for (const bad of ['limit=0', 'limit=501', 'limit=abc']) {
        const reply = await call(lore(), 'GET', `/chunks?collection_id=${col.id}&${bad}`, { token: me.token });
        expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
        expect(reply.body.detail[0].loc).toEqual(['query', 'limit']);
      }
      expect((await call(lore(), 'GET', `/chunks?collection_id=${col.id}&limit=500`, { token: me.token })).status).toBe(200);
    });

    it('includes 384-number embeddings only when asked, and gets one chunk', async () => {
      const withVectors = await call(lore(), 'GET', `/api/v1/chunks?content_id=${long.id}&include_embedding=true`, { token: me.token });
      for (const chunk of withVectors.body.chunks) {
        expect(chunk.embedding).toHaveLength(384);
        expect(chunk.embedding.every((x: unknown) => typeof x === 'number' && Number.isFinite(x))).toBe(true);
      }
      const [first] = withVectors.body.chunks;
      const got = await call(lore(), 'GET', `/api/v1/chunks/${first.id}`, { token: me.token });
      expect(got.status).toBe(200);
      const { embedding, ...rest } = first;
      expect(got.body).toEqual(rest);
      const gotWith = await call(lore(), 'GET', `/api/v1/chunks/${first.id}?include_embedding=true`, { token: me.token });
      expect(gotWith.body.embedding).toEqual(embedding);
      expect((await call(lore(), 'GET', `/api/v1/chunks?content_id=${long.id}&include_embedding=false`, { token: me.token })).body.chunks[0]).not.toHaveProperty('embedding');
      expect((await call(lore(), 'GET', `/api/v1/chunks/${first.id}x`, { token: me.token })).status).toBe(404);
    });

    it('re-embeds a changed chunk before answering: vector and keyword search find the new text at once', async () => {
      const target = (await call(lore(), 'GET', `/chunks?content_id=${short.id}&include_embedding=true`, { token: me.token })).body.chunks[0];
      const word = `frobnizzle${Math.random().toString(36).slice(2, 8)}`;
      const content = `Tectonic ${word} plates drift a few centimetres every year.`;
      const patched = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { content } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: target.id, content_id: short.id, content, chunk_index: 0, size_bytes: Buffer.byteLength(content) });
      const keyword = await search(lore(), me.token, { collection_id: col.id, query: word, search_type: 'keyword' });
      expect(keyword.body.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual([target.id]);
      expect(keyword.body.results[0].content).toBe(content);
      const vector = await search(lore(), me.token, { collection_id: col.id, query: content, search_type: 'vector' });
      expect(vector.body.results[0]).toMatchObject({ chunk_id: target.id, content });
      expect(vector.body.results[0].score).toBeGreaterThan(0.99);
      const old = await search(lore(), me.token, { collection_id: col.id, query: 'pollinate', search_type: 'keyword' });
      expect(old.body.results).toEqual([]);
      const after = await call(lore(), 'GET', `/api/v1/chunks/${target.id}?include_embedding=true`, { token: me.token });
      expect(after.body.content).toBe(content);
      expect(after.body.embedding).not.toEqual(target.embedding);
    });

    it('keeps the embedding of a metadata-only change, and its metadata is filterable at once', async () => {
      const target = (await call(lore(), 'GET', `/chunks?content_id=${long.id}&include_embedding=true`, { token: me.token })).body.chunks[1];
      const patched = await call(lore(), 'PATCH', `/api/v1/chunks/${target.id}`, { token: me.token, body: { metadata: { reviewed: 'yes', score: 7 } } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: target.id, content: target.content, metadata: { reviewed: 'yes', score: 7 } });
      const after = await call(lore(), 'GET', `/api/v1/chunks/${target.id}?include_embedding=true`, { token: me.token });
      expect(after.body.embedding).toEqual(target.embedding);
      expect(after.body.metadata).toEqual({ reviewed: 'yes', score: 7 });
      for (const search_type of SEARCH_TYPES) {
        const hits = await search(lore(), me.token, { collection_id: col.id, query: target.content, search_type, filters: { 'metadata.reviewed': 'yes' } });
        expect(hits.body.results.map((r: { chunk_id: string }) => r.chunk_id)).toEqual([target.id]);
        expect(hits.body.results[0].metadata).toEqual({ reviewed: 'yes', score: 7 });
      }
      const empty = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: {} });
      expect(empty.status).toBe(422);
      const badMeta = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: [1] } });
      expect(badMeta.status).toBe(422);
      expect(locs(badMeta)).toContainEqual(['body', 'metadata']);
      const deep = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: nested(33) } });
      expect(deep.status).toBe(422);
      expect(locs(deep)).toContainEqual(['body', 'metadata']);
      const deepest = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: nested(32) } });
      expect(deepest.status).toBe(200);
      const restored = await call(lore(), 'PATCH', `/chunks/${target.id}`, { token: me.token, body: { metadata: { reviewed: 'yes', score: 7 } } });
      expect(restored.status).toBe(200);
      expect((await call(lore(), 'PATCH', `/chunks/${target.id}x`, { token: me.token, body: { content: 'x' } })).status).toBe(404);
    });

    it('deletes a chunk', async () => {
      const chunks = (await call(lore(), 'GET', `/chunks?content_id=${long.id}`, { token: me.token })).body.chunks as Array<{ id: string; content: string }>;
      const target = chunks[chunks.length - 1]!;
      const deleted = await call(lore(), 'DELETE', `/api/v1/chunks/${target.id}`, { token: me.token });
      expect(deleted.status).toBe(200);
      expect((await call(lore(), 'GET', `/api/v1/chunks/${target.id}`, { token: me.token })).status).toBe(404);
      const left = (await call(lore(), 'GET', `/chunks?content_id=${long.id}`, { token: me.token })).body.chunks.map((c: { id: string }) => c.id);
      expect(left).toEqual(chunks.slice(0, -1).map((c) => c.id));
      for (const search_type of SEARCH_TYPES) {
        const hits = await search(lore(), me.token, { collection_id: col.id, query: target.content, search_type, max_results: 100 });
        expect(hits.body.results.map((r: { chunk_id: string }) => r.chunk_id)).not.toContain(target.id);
      }
      expect((await call(lore(), 'DELETE', `/api/v1/chunks/${target.id}`, { token: me.token })).status).toBe(404);
    });
  });

}
