import { send } from '@lore/platform/transport/port';
import { startContext, until, type RunningContext } from '@lore/platform/testing';
import { describeWithModels, startTestEmbeddingServer, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { knowledgeContext } from './knowledge.context';

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const scope = { workspaceId: 'ws', actor: 'user:alice', collections: null };


/** A model change re-indexes in the background; searches use the old index until the new one is complete. */
describeWithModels('knowledge: changing a collection\'s embedding model', (modelsDir) => {
  let server: TestEmbeddingServer;
  let running: RunningContext;

  beforeAll(async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(knowledgeContext, {
      MODELS_DIR: modelsDir,
      EMBEDDING_OPENAI_BASE_URL: server.baseUrl,
      EMBEDDING_OPENAI_MODEL: 'bag-of-words',
      EMBEDDING_OPENAI_DIMENSIONS: '64',
    });
  });
  afterAll(async () => {
    await running.stop();
    await server.close();
  });

  it('keeps answering from the old model while the new index is built, then switches', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'switching' });
    expect(collection.embedding).toMatchObject({ provider: 'local', dimensions: 384 });
    const texts = ['Volcanoes erupt molten lava from deep below.', 'Penguins huddle together in the Antarctic winter.', 'The stock market fell sharply on Monday.'];
    const contents = [];
    for (const [i, text] of texts.entries()) contents.push(await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: `doc ${i}`, text, mimeType: 'text/plain' }));
    for (const content of contents) await until(() => send(running.transport, messages.getContent, { ...scope, contentId: content.id }), (c) => c.status === 'completed');
    const vectorSearch = () => send(running.transport, messages.search, { ...scope, collectionId: collection.id, query: 'penguins antarctic', searchType: 'vector', maxResults: 1 });
    expect((await vectorSearch()).results[0]?.content).toBe(texts[1]);

    // The new model answers slowly: the re-index is visibly in progress for a while.
    server.script({ delayMs: 1500 });
    const changed = await send(running.transport, messages.updateCollection, { ...scope, collectionId: collection.id, embedding: { provider: 'openai-compatible', model: 'bag-of-words' } });
    expect(changed.embedding).toMatchObject({ provider: 'local' });
    expect(changed.pending_embedding).toMatchObject({ provider: 'openai-compatible', model: 'bag-of-words', dimensions: 64 });
    const during = await vectorSearch();
    expect(during.results[0]?.content).toBe(texts[1]);
    expect(server.requests.some((r) => Array.isArray(r.body?.input) && r.body.input.includes('penguins antarctic'))).toBe(false); // still the local model

    const switched = await until(() => send(running.transport, messages.getCollection, { ...scope, collectionId: collection.id }), (c) => c.pending_embedding === null);
    expect(switched.embedding).toMatchObject({ provider: 'openai-compatible', model: 'bag-of-words', dimensions: 64 });
    const after = await vectorSearch();
    expect(after.results[0]?.content).toBe(texts[1]);
    expect(server.requests.some((r) => JSON.stringify(r.body?.input).includes('penguins antarctic'))).toBe(true); // the query now goes to the new model
    const chunk = await send(running.transport, messages.getChunk, { ...scope, chunkId: after.results[0]?.chunk_id ?? '', includeEmbedding: true });
    expect(chunk.embedding).toHaveLength(64);
  });

  it('refuses a model that is not configured, naming the ones that are', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'stays' });
    await expect(send(running.transport, messages.updateCollection, { ...scope, collectionId: collection.id, embedding: { model: 'no-such-model' } })).rejects.toMatchObject({
      code: 'validation',
      message: expect.stringContaining('local/Xenova/all-MiniLM-L6-v2'),
    });
  });
});
