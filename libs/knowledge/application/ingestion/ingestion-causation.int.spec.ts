import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeMessages } from '@lore/knowledge/contracts';
import { contentStreamId } from '@lore/knowledge/domain';
import { knowledgeContext } from '../knowledge.context';

/**
 * Who and why on events a reaction appends (issue 9): the ingestion workers' events name the
 * event that asked for the work as their cause, and inherit its correlation id (the request
 * that added the content) and actor.
 */
const messages = knowledgeMessages({ maxUploadBytes: 1024 * 1024 });
const scope = { workspaceId: 'ws_cause', actor: 'user:causer', collections: null };

describe('ingestion events carry their cause', () => {
  let running: RunningContext;
  let server: TestEmbeddingServer;

  beforeAll(async () => {
    server = await startTestEmbeddingServer({ dimensions: 32 });
    running = await startContext(knowledgeContext, {
      EMBEDDING_DEFAULT_PROVIDER: 'openai-compatible',
      EMBEDDING_OPENAI_BASE_URL: server.baseUrl,
      EMBEDDING_OPENAI_MODEL: 'test-embedder',
      EMBEDDING_OPENAI_DIMENSIONS: '32',
      EMBEDDING_OPENAI_MAX_INPUT_TOKENS: '512',
    });
  });
  afterAll(async () => {
    await running.stop();
    await server.close();
  });

  it('marks every event of the processing attempt as caused by ContentAdded, in the request\'s correlation', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...scope, name: 'caused', settings: { chunk_size: 64, chunk_overlap: 8 } });
    const content = await send(running.transport, messages.createContent, { ...scope, collectionId: collection.id, name: 'doc.txt', text: 'one two three four five six seven eight nine ten. '.repeat(20), mimeType: 'text/plain' }, { requestId: 'req-cause-1' });
    const deadline = Date.now() + 30_000;
    while ((await send(running.transport, messages.getContent, { ...scope, contentId: content.id })).status !== 'completed') {
      if (Date.now() > deadline) throw new Error('content did not complete');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }

    const stores = await running.openStores();
    try {
      const [added, ...worked] = await stores.events.readStream(contentStreamId(content.id));
      expect(added?.type).toBe('knowledge.ContentAdded');
      expect(added?.metadata).toMatchObject({ requestId: 'req-cause-1', correlationId: 'req-cause-1', actor: 'user:causer' });
      expect(worked.map((e) => e.type)).toContain('knowledge.ContentProcessingCompleted');
      for (const event of worked) {
        expect({ type: event.type, metadata: event.metadata }).toEqual({
          type: event.type,
          metadata: expect.objectContaining({ causationId: added?.id, correlationId: 'req-cause-1', actor: 'user:causer', workspaceId: 'ws_cause' }),
        });
        expect(event.metadata).not.toHaveProperty('requestId');
      }
    } finally {
      await stores.close();
    }
  });
});
