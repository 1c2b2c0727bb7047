import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { AppError } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { describeWithModels, startTestEmbeddingServer, testEmbeddingEnv, type ScriptedAnswer, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeMessages, type ContentRecord } from '@lore/knowledge/contracts';
import { chunkIdOf, contentStreamId } from '@lore/knowledge/domain';
import { knowledgeContext } from '../knowledge.context';
import { embeddingModelOf } from '../embedding-choice';
import { encodeVector } from '../chunk-shape';

/**
 * Processing is never stuck: every content ends `completed` or `failed` with a reason, through
 * transient provider failures (retried up to KNOWLEDGE_PROCESSING_ATTEMPTS), a provider that
 * hangs (KNOWLEDGE_PROCESSING_TIMEOUT_MS), a missing local model, a worker that died holding
 * the lease (KNOWLEDGE_LEASE_MS), and a deletion in the middle of an attempt. The context runs
 * for real (embedded stores, in-process transport); the OpenAI-compatible provider talks HTTP to
 * a local test server that can be told to fail or hang.
 *
 * Timing: nothing here asserts an upper bound tighter than `SETTLE_MS`; every wait polls.
 */
const messages = knowledgeMessages({ maxUploadBytes: 20 * 1024 * 1024 });
const scope = { workspaceId: 'ws_ingest', actor: 'user:ingest', collections: null };
/** Generous: a loaded 2-core machine runs other suites beside this one. */
const SETTLE_MS = 60_000;
const TEST_TIMEOUT_MS = 150_000;
/**
 * The OpenAI-compatible provider tries each HTTP call 5 times (DEFAULT_RETRY_POLICY) before a
 * processing attempt sees the failure; `retry-after-ms: 0` keeps its waits under 0.5 s each.
 */
const HTTP_TRIES_PER_CALL = 5;
const unavailable503: ScriptedAnswer = { status: 503, headers: { 'retry-after-ms': '0' }, body: { error: { message: 'model overloaded', type: 'server_error' } } };

function serverEnv(server: TestEmbeddingServer, more: Record<string, string> = {}): Record<string, string> {
  return {
    ...testEmbeddingEnv(server),
    KNOWLEDGE_RETRY_BASE_MS: '50',
    ...more,
  };
}

/** `words` distinct-ish words: ~3.5 approximate tokens each. */
function text(words: number, seed = 'w'): string {
  return Array.from({ length: words }, (_, i) => `${seed}${i}${i % 7 === 0 ? '.' : ''}`).join(' ');
}

async function poll<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = SETTLE_MS): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: T = await read();
  while (!done(last)) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    last = await read();
  }
  return last;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('ingestion: processing is never stuck', () => {
  let running: RunningContext | undefined;
  let server: TestEmbeddingServer | undefined;
  const dirs: string[] = [];

  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await server?.close();
    server = undefined;
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  const ctx = (): RunningContext => {
    if (running === undefined) throw new Error('no context');
    return running;
  };
  const start = async (env: Record<string, string>): Promise<RunningContext> => (running = await startContext(knowledgeContext, env));
  const startServer = async (): Promise<TestEmbeddingServer> => (server = await startTestEmbeddingServer({ dimensions: 64 }));
  const createCollection = (settings = { chunk_size: 64, chunk_overlap: 8 }) => send(ctx().transport, messages.createCollection, { ...scope, name: `c-${randomUUID().slice(0, 8)}`, settings });
  const createContent = (collectionId: string, body: string) => send(ctx().transport, messages.createContent, { ...scope, collectionId, name: 'doc.txt', text: body, mimeType: 'text/plain' });
  const getContent = (contentId: string) => send(ctx().transport, messages.getContent, { ...scope, contentId });
  const settled = (contentId: string, timeoutMs = SETTLE_MS): Promise<ContentRecord> =>
    poll(`content ${contentId} to complete or fail`, () => getContent(contentId), (c) => c.status === 'completed' || c.status === 'failed', timeoutMs);

  /** Every chunk of a content, walking the cursor; checks there are no duplicates and no gaps. */
  const chunksOf = async (contentId: string) => {
    const all = [];
    let cursor: string | undefined;
    do {
      const page = await send(ctx().transport, messages.listChunks, { ...scope, contentId, limit: 500, ...(cursor === undefined ? {} : { cursor }) });
      all.push(...page.items);
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    return all;
  };
  const expectWholeChunks = async (content: ContentRecord): Promise<void> => {
    const chunks = await chunksOf(content.id);
    expect(chunks.length).toBe(content.chunk_count);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(chunks.length);
    expect(chunks.map((c) => c.chunk_index).sort((a, b) => a - b)).toEqual(chunks.map((_, i) => i));
    expect(chunks.every((c) => c.id === chunkIdOf(content.id, c.chunk_index))).toBe(true);
  };

  describeWithModels('with the local model', (modelsDir) => {
    it(
      'completes a content with its chunks, embedded by the local ONNX model',
      async () => {
        await start({ MODELS_DIR: modelsDir, HF_ENDPOINT: 'http://127.0.0.1:9/' });
        const collection = await createCollection();
        const created = await createContent(collection.id, text(400));
        expect(created).toMatchObject({ status: 'new', attempts: 0, chunk_count: 0 });
        const done = await settled(created.id);
        expect(done).toMatchObject({ status: 'completed', error: null, attempts: 1 });
        expect(done.chunk_count).toBeGreaterThan(5);
        expect(done.processed_at).not.toBeNull();
        await expectWholeChunks(done);
        const stats = (await send(ctx().transport, messages.getCollection, { ...scope, collectionId: collection.id })).stats;
        expect(stats).toMatchObject({ content_count: 1, chunk_count: done.chunk_count });
      },
      TEST_TIMEOUT_MS,
    );
  });

  it(
    'retries a provider answering 503 and completes: attempts = failed calls + 1',
    async () => {
      const embedder = await startServer();
      const failingCalls = 2;
      embedder.script(...Array.from({ length: failingCalls * HTTP_TRIES_PER_CALL }, () => unavailable503));
      await start(serverEnv(embedder, { KNOWLEDGE_PROCESSING_ATTEMPTS: '4' }));
      const collection = await createCollection();
      const created = await createContent(collection.id, text(150));
      const done = await settled(created.id);
      expect(done).toMatchObject({ status: 'completed', error: null, attempts: failingCalls + 1 });
      expect(done.chunk_count).toBeGreaterThan(1);
      await expectWholeChunks(done);
      expect(embedder.requests.length).toBe(failingCalls * HTTP_TRIES_PER_CALL + 1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'fails with a clear error after KNOWLEDGE_PROCESSING_ATTEMPTS attempts when the provider keeps failing',
    async () => {
      const embedder = await startServer();
      embedder.script(...Array.from({ length: 1000 }, () => unavailable503));
      await start(serverEnv(embedder, { KNOWLEDGE_PROCESSING_ATTEMPTS: '3' }));
      const collection = await createCollection();
      const created = await createContent(collection.id, text(150));
      // While it waits for a retry it shows as processing (never a status outside the four).
      const done = await settled(created.id);
      expect(done).toMatchObject({ status: 'failed', attempts: 3, chunk_count: 0 });
      expect(done.error).toMatch(/answered 503: model overloaded/);
      expect(done.error).toMatch(/gave up after 3 attempts/);
      expect(embedder.requests.length).toBe(3 * HTTP_TRIES_PER_CALL);
      // Failed is final: no further attempt is made.
      await sleep(1500);
      expect(await getContent(created.id)).toMatchObject({ status: 'failed', attempts: 3 });
      expect(embedder.requests.length).toBe(3 * HTTP_TRIES_PER_CALL);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'fails with "timed out" after KNOWLEDGE_PROCESSING_TIMEOUT_MS when the provider hangs',
    async () => {
      const embedder = await startServer();
      embedder.script({ hang: true });
      await start(serverEnv(embedder, { KNOWLEDGE_PROCESSING_TIMEOUT_MS: '1500', KNOWLEDGE_LEASE_MS: '900' }));
      const collection = await createCollection();
      const began = Date.now();
      const created = await createContent(collection.id, text(150));
      const done = await settled(created.id);
      expect(Date.now() - began).toBeGreaterThanOrEqual(1500);
      expect(done).toMatchObject({ status: 'failed', attempts: 1, chunk_count: 0 });
      expect(done.error).toMatch(/timed out after 1\.5 s without progress/);
      // Its heartbeats kept the lease while it hung: no second worker started an attempt.
      expect(embedder.requests.length).toBe(1);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'does not time out a slow provider that keeps making progress, however long the whole attempt takes',
    async () => {
      const embedder = await startServer();
      // Each embedding call (64 texts: two requests of 32, in parallel) takes ~0.7 s; 8 calls take
      // over 5 s in all, past the timeout, while each step stays well within it.
      embedder.script(...Array.from({ length: 16 }, () => ({ delayMs: 700 })));
      await start(serverEnv(embedder, { KNOWLEDGE_PROCESSING_TIMEOUT_MS: '3000', KNOWLEDGE_LEASE_MS: '900' }));
      const collection = await createCollection();
      const began = Date.now();
      const created = await createContent(collection.id, text(8000));
      const done = await settled(created.id);
      expect(done).toMatchObject({ status: 'completed', error: null, attempts: 1 });
      expect(done.chunk_count).toBeGreaterThan(7 * 64);
      expect(Date.now() - began).toBeGreaterThan(3000);
      await expectWholeChunks(done);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'fails with a message naming MODELS_DIR when the local model is nowhere, while collections and contents still work',
    async () => {
      const emptyModels = mkdtempSync(join(tmpdir(), 'lore-no-models-'));
      dirs.push(emptyModels);
      // DATA_DIR is the fixture's fresh directory, so its model cache is empty; the hub is a closed local port.
      await start({ MODELS_DIR: emptyModels, HF_ENDPOINT: 'http://127.0.0.1:9/', KNOWLEDGE_RETRY_BASE_MS: '50' });
      const collection = await createCollection();
      expect(collection.embedding.provider).toBe('local');
      const created = await createContent(collection.id, text(100));
      const done = await settled(created.id);
      expect(done).toMatchObject({ status: 'failed', attempts: 1, chunk_count: 0 });
      expect(done.error).toMatch(/MODELS_DIR/);
      expect(done.error).toContain(emptyModels);

      // Everything that needs no embedding keeps working.
      const renamed = await send(ctx().transport, messages.updateCollection, { ...scope, collectionId: collection.id, name: 'renamed' });
      expect(renamed.name).toBe('renamed');
      const listed = await send(ctx().transport, messages.listCollections, { ...scope });
      expect(listed.items.map((c) => c.id)).toContain(collection.id);
      const second = await createContent(collection.id, 'another text');
      expect((await settled(second.id)).status).toBe('failed');
      const failedOnes = await send(ctx().transport, messages.listContents, { ...scope, collectionId: collection.id, status: 'failed' });
      expect(failedOnes.items.map((c) => c.id).sort()).toEqual([created.id, second.id].sort());
      await send(ctx().transport, messages.deleteContent, { ...scope, contentId: second.id });
      await expect(getContent(second.id)).rejects.toMatchObject({ code: 'not_found' });
      expect(await chunksOf(created.id)).toEqual([]);
      await send(ctx().transport, messages.deleteCollection, { ...scope, collectionId: collection.id });
      await expect(getContent(created.id)).rejects.toBeInstanceOf(AppError);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'completes on reprocess once the provider works again',
    async () => {
      const embedder = await startServer();
      embedder.script(...Array.from({ length: 2 * HTTP_TRIES_PER_CALL }, () => unavailable503));
      await start(serverEnv(embedder, { KNOWLEDGE_PROCESSING_ATTEMPTS: '2' }));
      const collection = await createCollection();
      const created = await createContent(collection.id, text(150));
      const failed = await settled(created.id);
      expect(failed).toMatchObject({ status: 'failed', attempts: 2 });
      // The script is used up: the provider answers again.
      const requested = await send(ctx().transport, messages.reprocessContent, { ...scope, contentId: created.id });
      expect(requested).toMatchObject({ status: 'new', error: null });
      const done = await settled(created.id);
      expect(done).toMatchObject({ status: 'completed', error: null, attempts: 3 });
      await expectWholeChunks(done);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'starts a content reprocessed during an attempt as soon as that attempt gives up its lease, not at the next sweep',
    async () => {
      const embedder = await startServer();
      embedder.script({ delayMs: 3000 });
      // A long lease: the sweep (every half lease) comes only after a minute, heartbeats every 40 s.
      await start(serverEnv(embedder, { KNOWLEDGE_LEASE_MS: '120000' }));
      const collection = await createCollection();
      const created = await createContent(collection.id, text(100));
      await poll('the first attempt to call the provider', async () => embedder.requests.length, (n) => n >= 1);
      expect(await send(ctx().transport, messages.reprocessContent, { ...scope, contentId: created.id })).toMatchObject({ status: 'new' });
      // The old attempt finds its lease gone after the slow answer (~3 s); the content must not wait a minute.
      const done = await settled(created.id, 30_000);
      expect(done).toMatchObject({ status: 'completed', attempts: 2 });
      await expectWholeChunks(done);
    },
    TEST_TIMEOUT_MS,
  );

  describe('a worker that died holding the lease (the state a kill -9 leaves)', () => {
    /**
     * Writes what a crashed worker leaves, beside the running context: the content, attempt 1
     * started under a lease nobody renews, and a first batch of chunks (stale text) of that
     * attempt. startContext cannot restart on the same DATA_DIR (it deletes it on stop), so the
     * restart itself is proven by tools/probes/kill-during-ingest.mjs; here the live workers
     * play the restarted service: the content announces itself, its lease is held, and only
     * the sweep after the lease lapses may take it over.
     */
    async function writeCrashState(collectionId: string, body: string, leaseMs: number): Promise<string> {
      const collection = await send(ctx().transport, messages.getCollection, { ...scope, collectionId });
      const model = embeddingModelOf({ ...collection.embedding, maxInputTokens: collection.embedding.max_input_tokens, tokenizer: 'approximate' });
      const contentId = `cnt_crash_${randomUUID().slice(0, 8)}`;
      const now = new Date();
      const vector = encodeVector(new Float32Array(64).fill(0.125));
      const stores = await ctx().openStores();
      try {
        await stores.events.append(
          contentStreamId(contentId),
          [
            {
              id: randomUUID(),
              type: 'knowledge.ContentAdded',
              data: { contentId, collectionId, workspaceId: scope.workspaceId, name: 'crashed.txt', source: null, mimeType: 'text/plain', metadata: {}, text: body, sizeBytes: Buffer.byteLength(body), createdBy: scope.actor, createdAt: now.toISOString() },
            },
            {
              id: randomUUID(),
              type: 'knowledge.ContentProcessingStarted',
              data: { contentId, collectionId, attempt: 1, leaseId: 'lease-of-a-dead-worker', leaseUntil: new Date(now.getTime() + leaseMs).toISOString(), chunkSize: 64, chunkOverlap: 8, embedding: model, startedAt: now.toISOString() },
            },
            {
              id: randomUUID(),
              type: 'knowledge.ContentChunksAdded',
              data: {
                contentId,
                collectionId,
                workspaceId: scope.workspaceId,
                attempt: 1,
                index: { name: model.index, dimensions: 64, distance: 'cosine' },
                contentName: 'crashed.txt',
                source: null,
                metadata: {},
                chunks: [0, 1, 2].map((i) => ({ chunkId: chunkIdOf(contentId, i), chunkIndex: i, text: `stale ${i}`, start: 0, end: 1, tokens: 1, vector })),
                addedAt: now.toISOString(),
              },
            },
          ],
          'no_stream',
        );
      } finally {
        await stores.close();
      }
      return contentId;
    }

    it(
      'is taken over once the lease lapses, and completes with every chunk once',
      async () => {
        const embedder = await startServer();
        const leaseMs = 1500;
        await start(serverEnv(embedder, { KNOWLEDGE_LEASE_MS: String(leaseMs) }));
        const collection = await createCollection();
        const body = text(300);
        const reference = await settled((await createContent(collection.id, body)).id);
        expect(reference.status).toBe('completed');

        const contentId = await writeCrashState(collection.id, body, leaseMs);
        const seen = await poll('the crashed content to be projected', () => getContent(contentId).catch(() => null), (c) => c !== null);
        expect(seen).toMatchObject({ status: 'processing', attempts: 1 });
        const done = await settled(contentId);
        expect(done).toMatchObject({ status: 'completed', error: null, attempts: 2, chunk_count: reference.chunk_count });
        await expectWholeChunks(done);
        const chunks = await chunksOf(contentId);
        expect(chunks.some((c) => c.content.startsWith('stale'))).toBe(false);
        const stats = (await send(ctx().transport, messages.getCollection, { ...scope, collectionId: collection.id })).stats;
        expect(stats.chunk_count).toBe(2 * reference.chunk_count);
      },
      TEST_TIMEOUT_MS,
    );

    it(
      'is failed, saying so, when the dead attempt was the last one allowed',
      async () => {
        const embedder = await startServer();
        await start(serverEnv(embedder, { KNOWLEDGE_LEASE_MS: '1000', KNOWLEDGE_PROCESSING_ATTEMPTS: '1' }));
        const collection = await createCollection();
        const contentId = await writeCrashState(collection.id, text(100), 1000);
        const done = await poll('the crashed content to fail', () => getContent(contentId).catch(() => null), (c) => c?.status === 'failed');
        expect(done).toMatchObject({ status: 'failed', attempts: 1 });
        expect(done?.error).toMatch(/interrupted once/);
        expect(embedder.requests.length).toBe(0);
        // A reprocess starts over with a fresh count.
        await send(ctx().transport, messages.reprocessContent, { ...scope, contentId });
        expect(await settled(contentId)).toMatchObject({ status: 'completed', attempts: 2 });
      },
      TEST_TIMEOUT_MS,
    );
  });

  it(
    'stops the worker of a content deleted while it is processed, and leaves no chunk',
    async () => {
      const embedder = await startServer();
      // The first embedding call (two HTTP requests of 32 texts) answers at once; the second is slow.
      embedder.script({ delayMs: 0 }, { delayMs: 0 }, { delayMs: 4000 }, { delayMs: 4000 });
      await start(serverEnv(embedder, { KNOWLEDGE_LEASE_MS: '900' }));
      const collection = await createCollection();
      const created = await createContent(collection.id, text(2000));
      await poll('a first batch of chunks', () => chunksOf(created.id), (chunks) => chunks.length > 0);
      await poll('the second embedding call', async () => embedder.requests.length, (n) => n >= 3);
      const requestsAtDeletion = embedder.requests.length;
      await send(ctx().transport, messages.deleteContent, { ...scope, contentId: created.id });

      // Past the slow answer: the worker found its lease gone and stopped without another call.
      await sleep(5500);
      expect(embedder.requests.length).toBe(requestsAtDeletion);
      await expect(getContent(created.id)).rejects.toMatchObject({ code: 'not_found' });
      expect(await chunksOf(created.id)).toEqual([]);
      const page = await send(ctx().transport, messages.listChunks, { ...scope, collectionId: collection.id, limit: 500 });
      expect(page.items).toEqual([]);
      const found = await send(ctx().transport, messages.search, { ...scope, collectionId: collection.id, query: 'w1', searchType: 'keyword', maxResults: 10 });
      expect(found.results).toEqual([]);
      expect((await send(ctx().transport, messages.getCollection, { ...scope, collectionId: collection.id })).stats).toMatchObject({ content_count: 0, chunk_count: 0 });
      // The stream was erased with the deletion, and the stopped worker recorded nothing after it
      // (not even a failure, which would have started the stream again).
      const stores = await ctx().openStores();
      try {
        expect(await stores.events.readStream(contentStreamId(created.id))).toEqual([]);
      } finally {
        await stores.close();
      }
    },
    TEST_TIMEOUT_MS,
  );
});
