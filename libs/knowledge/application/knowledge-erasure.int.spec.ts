import { send } from '@lore/platform/transport/port';
import { filesHolding, startContext, until, type RunningContext } from '@lore/platform/testing';
import { describeWithModels, startTestEmbeddingServer, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { collectionStreamId, contentStreamId } from '@lore/knowledge/domain';
import { knowledgeContext } from './knowledge.context';

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const scope = { workspaceId: 'ws_erase', actor: 'user:alice', collections: null };

/**
 * Knowledge erasure (issue 18): deleting a content or a collection answers once its words are
 * gone from every file of DATA_DIR: the log (streams deleted, texts sealed under a shredded
 * key, a collection's re-index batches included), the read models and the search indexes.
 */
describeWithModels('knowledge erasure', (modelsDir) => {
  let server: TestEmbeddingServer;
  let running: RunningContext;

  beforeAll(async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(knowledgeContext, { MODELS_DIR: modelsDir, EMBEDDING_OPENAI_BASE_URL: server.baseUrl, EMBEDDING_OPENAI_MODEL: 'bag-of-words', EMBEDDING_OPENAI_DIMENSIONS: '64' });
  });
  afterAll(async () => {
    await running.stop();
    await server.close();
  });

  const add = async (collectionId: string, name: string, text: string) => {
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId, name, text, mimeType: 'text/plain' });
    await until(() => send(running.transport, messages.getContent, { ...scope, contentId: content.id }), (c) => c.status === 'completed');
    return content;
  };
  const streamOf = async (streamId: string) => {
    const stores = await running.openStores();
    try {
      return await stores.events.readStream(streamId);
    } finally {
      await stores.close();
    }
  };
  const keywordHits = async (collectionId: string, query: string) =>
    (await send(running.transport, messages.search, { ...scope, collectionId, query, searchType: 'keyword', maxResults: 10 })).results.map((r) => r.content_id);

  it('a deleted content leaves no word in any file, its re-indexed copies included; the others stay searchable', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'erasing' });
    const gone = await add(collection.id, 'gone.txt', 'Zanzibarquartz lanterns glow over the harbour of Quillowmere at dusk.');
    const kept = await add(collection.id, 'kept.txt', 'Marmalitheon orchards ripen slowly in the northern valleys.');
    // A model change copies every chunk's text into the collection's own stream.
    await send(running.transport, messages.updateCollection, { ...scope, collectionId: collection.id, embedding: { provider: 'openai-compatible', model: 'bag-of-words' } });
    await until(() => send(running.transport, messages.getCollection, { ...scope, collectionId: collection.id }), (c) => c.pending_embedding === null);
    const reindexed = (await streamOf(collectionStreamId(collection.id))).filter((e) => e.type === 'knowledge.CollectionChunksReindexed');
    expect(reindexed.length).toBeGreaterThan(0);
    expect(JSON.stringify(reindexed.map((e) => e.data))).not.toMatch(/Zanzibarquartz|Marmalitheon/);
    expect(JSON.stringify((await streamOf(contentStreamId(gone.id))).map((e) => e.data))).not.toMatch(/Zanzibarquartz|Quillowmere/);
    expect(filesHolding(running.dataDir, 'Zanzibarquartz').length).toBeGreaterThan(0); // in the read models, for now

    await send(running.transport, messages.deleteContent, { ...scope, contentId: gone.id });

    expect(await streamOf(contentStreamId(gone.id))).toEqual([]);
    expect(filesHolding(running.dataDir, 'Zanzibarquartz')).toEqual([]);
    expect(filesHolding(running.dataDir, 'Quillowmere')).toEqual([]);
    expect(await keywordHits(collection.id, 'zanzibarquartz')).toEqual([]);
    expect(await keywordHits(collection.id, 'marmalitheon')).toEqual([kept.id]);
  });

  it('a deleted collection answers once every content of it, and its own stream, are erased', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'going', description: 'Wolfrandish notes' });
    const first = await add(collection.id, 'a.txt', 'Plumbrastic engines hum beneath the old mill.');
    const second = await add(collection.id, 'b.txt', 'Thornquillian poets gather every spring.');

    await send(running.transport, messages.deleteCollection, { ...scope, collectionId: collection.id });

    expect(await streamOf(collectionStreamId(collection.id))).toEqual([]);
    expect(await streamOf(contentStreamId(first.id))).toEqual([]);
    expect(await streamOf(contentStreamId(second.id))).toEqual([]);
    for (const word of ['Plumbrastic', 'Thornquillian', 'Wolfrandish']) expect(filesHolding(running.dataDir, word)).toEqual([]);
  });
});
