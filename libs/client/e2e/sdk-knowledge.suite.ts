import { toArray, type LoreClient } from '@lore/client';
import { freshUser, type LoreUnderTest } from './sdk-fixtures';

const TEXTS = {
  tea: 'Green tea is steamed soon after picking, which keeps its leaves green and its taste grassy.',
  volcano: 'A volcano erupts when magma rises through the crust; basalt lava flows far before it cools.',
  chess: 'In chess the knight moves in an L shape and is the only piece that can jump over others.',
};

/** Collections, contents (JSON and a multipart file upload), processing, chunks and the three searches, through the SDK. */
export function describeSdkKnowledge(lore: () => LoreUnderTest): void {
  describe('SDK: collections, contents, chunks, search', () => {
    let client: LoreClient;
    let collectionId: string;
    const contentIds: Record<string, string> = {};

    beforeAll(async () => {
      ({ client } = await freshUser(lore()));
      const collection = await client.collections.create({ name: 'sdk notes', description: 'SDK suite', tags: ['sdk'] });
      collectionId = collection.id;
      const tea = await client.contents.create({ collection_id: collectionId, name: 'tea', text: TEXTS.tea, metadata: { topic: 'drinks' } });
      const volcano = await client.contents.upload({ collection_id: collectionId, file: new Blob([`# Volcanoes\n\n${TEXTS.volcano}\n`], { type: 'text/markdown' }), filename: 'volcano.md', metadata: { topic: 'geology' } });
      const chess = await client.contents.upload({ collection_id: collectionId, file: new File([TEXTS.chess], 'chess.txt', { type: 'text/plain' }) });
      expect(new TextDecoder().decode(await client.contents.download(chess.id))).toBe(TEXTS.chess);
      Object.assign(contentIds, { tea: tea.id, volcano: volcano.id, chess: chess.id });
      await Promise.all(Object.values(contentIds).map((id) => client.contents.waitUntilProcessed(id, { timeoutMs: 30_000 })));
    }, 45_000);

    it('uploads files as multipart: the record names the file, keeps its metadata and the text is extracted', async () => {
      const volcano = await client.contents.get(contentIds['volcano']!);
      expect(volcano).toMatchObject({ name: 'volcano.md', mime_type: 'text/markdown', metadata: { topic: 'geology' }, status: 'completed' });
      expect(volcano.chunk_count).toBeGreaterThan(0);
      const chess = await client.contents.get(contentIds['chess']!);
      expect(chess).toMatchObject({ name: 'chess.txt', status: 'completed' });
    });

    it.each(['vector', 'keyword', 'hybrid'] as const)('finds the right passage by %s search, with its sub-scores', async (searchType) => {
      const found = await client.collections.search({ collection_id: collectionId, query: searchType === 'keyword' ? 'magma basalt lava' : 'molten rock coming out of a mountain', search_type: searchType, max_results: 3 });
      expect(found.results[0]).toMatchObject({ content_id: contentIds['volcano'], content_name: 'volcano.md' });
      const scores = found.results[0]!.scores;
      if (searchType !== 'keyword') expect(scores.vector).toEqual(expect.objectContaining({ score: expect.any(Number) }));
      if (searchType !== 'vector') expect(scores.keyword).toEqual(expect.objectContaining({ score: expect.any(Number) }));
    });

    it('iterates offset lists (contents, collections) and cursor lists (chunks) across pages', async () => {
      const contents = await toArray(client.contents.iterate({ collection_id: collectionId, limit: 1 }));
      expect(contents.map((c) => c.id).sort()).toEqual(Object.values(contentIds).sort());
      const second = await client.collections.create({ name: 'second' });
      const collections = await toArray(client.collections.iterate({ limit: 1 }));
      expect(collections.map((c) => c.id).sort()).toEqual([collectionId, second.id].sort());
      const chunks = await toArray(client.chunks.iterate({ collection_id: collectionId, limit: 1 }));
      const pageOfOne = await client.chunks.list({ collection_id: collectionId, limit: 1 });
      expect(pageOfOne.has_more).toBe(true);
      expect(chunks.length).toBeGreaterThanOrEqual(3);
      expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
      await client.collections.delete(second.id);
    });

    it('reads, edits and deletes a chunk, and the edit is searchable at once', async () => {
      const [chunk] = await toArray(client.chunks.iterate({ content_id: contentIds['chess']! }));
      expect(await client.chunks.get(chunk!.id)).toMatchObject({ id: chunk!.id, content_id: contentIds['chess'] });
      const edited = await client.chunks.update(chunk!.id, { content: 'Checkers pieces move diagonally and capture by jumping.', metadata: { edited: true } });
      expect(edited).toMatchObject({ content: 'Checkers pieces move diagonally and capture by jumping.', metadata: { edited: true } });
      const found = await client.collections.search({ collection_id: collectionId, query: 'checkers diagonally', search_type: 'keyword' });
      expect(found.results[0]?.chunk_id).toBe(chunk!.id);
      await client.chunks.delete(chunk!.id);
      await expect(client.chunks.get(chunk!.id)).rejects.toMatchObject({ status: 404 });
    });

    it('updates a collection, reprocesses and deletes a content', async () => {
      expect(await client.collections.update(collectionId, { description: 'renamed' })).toMatchObject({ description: 'renamed' });
      expect(await client.collections.get(collectionId)).toMatchObject({ id: collectionId, description: 'renamed' });
      const again = await client.contents.reprocess(contentIds['tea']!);
      expect(again.id).toBe(contentIds['tea']);
      await client.contents.waitUntilProcessed(contentIds['tea']!, { timeoutMs: 30_000 });
      await client.contents.delete(contentIds['tea']!);
      await expect(client.contents.get(contentIds['tea']!)).rejects.toMatchObject({ status: 404, detail: expect.any(String) });
    });
  });
}
