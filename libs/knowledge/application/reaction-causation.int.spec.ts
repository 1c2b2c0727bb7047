import type { RecordedEvent } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeMessages } from '@lore/knowledge/contracts';
import { collectionStreamId, contentStreamId } from '@lore/knowledge/domain';
import { knowledgeContext } from './knowledge.context';

/**
 * Events a reactor or a background worker appends say why: `causationId` is the stored event
 * they react to, `correlationId` that event's (the request that started the chain), and the
 * actor is that event's. Here on the knowledge context's real reactors and workers (embedded
 * stores, in-process transport): the ingestion workers answering a content's addition.
 */
const messages = knowledgeMessages({ maxUploadBytes: 1024 * 1024 });
const scope = { workspaceId: 'ws_causation', actor: 'user:alice', collections: null };
const TEXT = 'Penguins huddle together through the long Antarctic winter. Volcanoes erupt molten lava from deep below.';

async function poll<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
    last = await read();
  }
  return last;
}

describe('reactions record their cause', () => {
  let server: TestEmbeddingServer;
  let running: RunningContext;

  beforeAll(async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(knowledgeContext, {
      EMBEDDING_DEFAULT_PROVIDER: 'openai-compatible',
      EMBEDDING_OPENAI_BASE_URL: server.baseUrl,
      EMBEDDING_OPENAI_MODEL: 'test-embedder',
      EMBEDDING_OPENAI_DIMENSIONS: '64',
    });
  });
  afterAll(async () => {
    await running.stop();
    await server.close();
  });

  const streamOf = async (streamId: string): Promise<RecordedEvent[]> => {
    const stores = await running.openStores();
    try {
      return await stores.events.readStream(streamId);
    } finally {
      await stores.close();
    }
  };

  it('ingestion events are caused by the addition, in its request\'s correlation; a collection\'s deletion erases its streams', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'causes', settings: { chunk_size: 16, chunk_overlap: 0 } }, { requestId: 'req-create' });
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: 'doc.txt', text: TEXT, mimeType: 'text/plain' }, { requestId: 'req-add' });
    await poll('the content to complete', () => send(running.transport, messages.getContent, { ...scope, contentId: content.id }), (c) => c.status === 'completed' || c.status === 'failed');

    const [added, ...processing] = await streamOf(contentStreamId(content.id));
    expect(added).toMatchObject({ type: 'knowledge.ContentAdded', metadata: { requestId: 'req-add', correlationId: 'req-add', actor: 'user:alice', workspaceId: 'ws_causation' } });
    expect(processing.map((e) => e.type)).toEqual(expect.arrayContaining(['knowledge.ContentProcessingStarted', 'knowledge.ContentChunksAdded', 'knowledge.ContentProcessingCompleted']));
    for (const event of processing) {
      expect(event.metadata).toMatchObject({ causationId: added?.id, correlationId: 'req-add', actor: 'user:alice', workspaceId: 'ws_causation' });
      // No request of their own: they were not served, they reacted.
      expect(event.metadata).not.toHaveProperty('requestId');
    }

    await send(running.transport, messages.deleteCollection, { ...scope, collectionId: collection.id }, { requestId: 'req-delete' });
    // Answered once erased: the collection's stream and its content's are gone.
    expect(await streamOf(collectionStreamId(collection.id))).toEqual([]);
    expect(await streamOf(contentStreamId(content.id))).toEqual([]);
    // Ids and names only: nothing anyone wrote.
    for (const event of processing) expect(JSON.stringify(event.metadata)).not.toMatch(/Penguins|Volcanoes/);
  });
});
