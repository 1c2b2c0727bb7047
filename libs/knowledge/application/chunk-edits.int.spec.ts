import { send } from '@lore/platform/transport/port';
import { startContext, until, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, testEmbeddingEnv, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { contentStreamId } from '@lore/knowledge/domain';
import { knowledgeContext } from './knowledge.context';

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const scope = { workspaceId: 'ws_chunk_edits', actor: 'user:alice', collections: null };

/** Chunk edits (PATCH /chunks/{id}): what a refused or empty edit costs, the embedding server counting what it is asked. */
describe('knowledge: chunk edits', () => {
  let server: TestEmbeddingServer;
  let running: RunningContext;

  beforeAll(async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(knowledgeContext, testEmbeddingEnv(server));
  });
  afterAll(async () => {
    await running.stop();
    await server.close();
  });

  const streamLength = async (contentId: string): Promise<number> => {
    const stores = await running.openStores();
    try {
      return (await stores.events.readStream(contentStreamId(contentId))).length;
    } finally {
      await stores.close();
    }
  };
  const embedded = (word: string) => server.requests.filter((r) => JSON.stringify(r.body?.input ?? '').includes(word)).length;
  const completed = (contentId: string) => until(() => send(running.transport, messages.getContent, { ...scope, contentId }), (c) => c.status === 'completed');

  it('records nothing for a PATCH that changes nothing, and answers the chunk as it stands', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'same again' });
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: 'glaciers', text: 'Glaciers carve valleys slowly.', mimeType: 'text/plain' });
    await completed(content.id);
    const [chunk] = (await send(running.transport, messages.listChunks, { ...scope, contentId: content.id, limit: 10 })).items;
    if (chunk === undefined) throw new Error('no chunk');
    const edited = await send(running.transport, messages.updateChunk, { ...scope, chunkId: chunk.id, metadata: { reviewed: 'yes', score: 7 } });
    const events = await streamLength(content.id);
    const requests = server.requests.length;

    // The same metadata (keys in another order), then the same text and metadata: nothing to record.
    const again = await send(running.transport, messages.updateChunk, { ...scope, chunkId: chunk.id, metadata: { score: 7, reviewed: 'yes' } });
    const both = await send(running.transport, messages.updateChunk, { ...scope, chunkId: chunk.id, content: chunk.content, metadata: { reviewed: 'yes', score: 7 } });
    expect(again).toEqual(edited);
    expect(both).toEqual(edited);
    expect(await streamLength(content.id)).toBe(events);
    expect(server.requests.length).toBe(requests);
    expect(await send(running.transport, messages.getChunk, { ...scope, chunkId: chunk.id, includeEmbedding: false })).toEqual(edited);
  });

  it('refuses an edit of a chunk whose content is being processed before embedding its new text', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'busy', settings: { chunk_size: 16, chunk_overlap: 0 } });
    // Over 64 chunks: two batches (one event each). The first batch's two requests are answered
    // at once, the second's late, so the content shows chunks while still processing.
    const text = Array.from({ length: 120 }, (_, i) => `Sentence ${i} tells of rivers, hills and lanterns.`).join('\n\n');
    server.script({ delayMs: 0 }, { delayMs: 0 }, { delayMs: 3000 }, { delayMs: 3000 });
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: 'long', text, mimeType: 'text/plain' });
    const listed = await until(() => send(running.transport, messages.listChunks, { ...scope, contentId: content.id, limit: 10 }), (page) => page.items.length > 0);
    const [chunk] = listed.items;
    if (chunk === undefined) throw new Error('no chunk');
    expect((await send(running.transport, messages.getContent, { ...scope, contentId: content.id })).status).toBe('processing');

    const word = 'quokkazanzibar';
    await expect(send(running.transport, messages.updateChunk, { ...scope, chunkId: chunk.id, content: `A ${word} naps.` })).rejects.toMatchObject({ code: 'conflict' });
    // Another workspace's caller: 404, before any embedding too.
    await expect(send(running.transport, messages.updateChunk, { ...scope, workspaceId: 'ws_other', chunkId: chunk.id, content: `A ${word} naps.` })).rejects.toMatchObject({ code: 'not_found' });
    expect(embedded(word)).toBe(0);

    // Once completed, the same edit is embedded (once) and recorded.
    await completed(content.id);
    const edited = await send(running.transport, messages.updateChunk, { ...scope, chunkId: chunk.id, content: `A ${word} naps.` });
    expect(edited.content).toBe(`A ${word} naps.`);
    expect(embedded(word)).toBe(1);
  });

  it("embeds an edit of a completed content before its turn on the content's stream: the content's other writes do not wait for the model", async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'slow model', settings: { chunk_size: 16, chunk_overlap: 0 } });
    const text = Array.from({ length: 4 }, (_, i) => `Paragraph ${i} is about meadows and their many flowers.`).join('\n\n');
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: 'meadows', text, mimeType: 'text/plain' });
    await completed(content.id);
    const [first, second] = (await send(running.transport, messages.listChunks, { ...scope, contentId: content.id, limit: 10 })).items;
    if (first === undefined || second === undefined) throw new Error('fewer than two chunks');

    server.script({ delayMs: 3000 });
    let edited = false;
    const editing = send(running.transport, messages.updateChunk, { ...scope, chunkId: first.id, content: 'A wombat dozes.' }).then((chunk) => ((edited = true), chunk));
    await until(() => Promise.resolve(embedded('wombat')), (n) => n === 1);
    // The model is still answering the edit: a delete of another chunk of the content goes ahead.
    await send(running.transport, messages.deleteChunk, { ...scope, chunkId: second.id });
    expect(edited).toBe(false);
    expect((await editing).content).toBe('A wombat dozes.');
  });
});
