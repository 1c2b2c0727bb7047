import { randomUUID } from 'node:crypto';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, testEmbeddingEnv, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { knowledgeMessages, type ContentRecord } from '@lore/knowledge/contracts';
import { metricsRegistry, workspaceLabel } from '@lore/platform/telemetry';
import { knowledgeContext } from '../knowledge.context';

/**
 * Fair ingestion through the real context (embedded stores, in-process transport, the real
 * IngestionWorkers) with one worker and a provider that takes 300 ms per call: a backlog of
 * one tenant does not hold up another tenant's content, whether the tenants are two
 * workspaces or two users of one workspace. First come, first served, the late content ran
 * after the whole backlog.
 */
const messages = knowledgeMessages({ maxUploadBytes: 1024 * 1024 });
const BACKLOG = 20;
/** Slow enough that the reactor's hand-over on a loaded machine is short beside one attempt. */
const CALL_MS = 300;
const SETTLE_MS = 60_000;

type Scope = { readonly workspaceId: string; readonly actor: string; readonly collections: null };
const scopeOf = (workspaceId: string, user: string): Scope => ({ workspaceId, actor: `user:${user}`, collections: null });

async function poll<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  const deadline = Date.now() + SETTLE_MS;
  for (let last = await read(); ; last = await read()) {
    if (done(last)) return last;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The knowledge context with one worker, embedding through the test server. */
function withOneWorker(server: TestEmbeddingServer): Promise<RunningContext> {
  return startContext(knowledgeContext, {
    ...testEmbeddingEnv(server),
    KNOWLEDGE_WORKERS: '1',
  });
}

describe('ingestion: fair across tenants', () => {
  let running: RunningContext | undefined;
  let server: TestEmbeddingServer | undefined;

  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await server?.close();
    server = undefined;
  });

  it.each([
    ['another workspace', scopeOf('ws_fair_busy', 'alice'), scopeOf('ws_fair_small', 'bob')],
    ['another user of the same workspace', scopeOf('ws_fair_shared', 'alice'), scopeOf('ws_fair_shared', 'bob')],
  ])(
    "takes %s's one content within one attempt of a backlog of another",
    async (_, busy, small) => {
      server = await startTestEmbeddingServer({ dimensions: 64 });
      server.script(...Array.from({ length: BACKLOG + 5 }, () => ({ delayMs: CALL_MS })));
      running = await withOneWorker(server);
      const transport = running.transport;
      const collectionOf = (scope: Scope) => send(transport, messages.createCollection, { ...scope, name: `c-${randomUUID().slice(0, 8)}` });
      const add = (scope: Scope, collectionId: string, text: string) => send(transport, messages.createContent, { ...scope, collectionId, name: 'doc.txt', text, mimeType: 'text/plain' });
      const busyCollection = await collectionOf(busy);
      const smallCollection = await collectionOf(small);

      const backlog: ContentRecord[] = [];
      for (let i = 0; i < BACKLOG; i++) backlog.push(await add(busy, busyCollection.id, `busy document ${i} about tides and moons`));
      // The backlog is being worked on when the small content arrives.
      await poll('the backlog to start', () => send(transport, messages.getContent, { ...busy, contentId: backlog[0]?.id ?? '' }), (c) => c.status !== 'new');
      // The operator sees the backlog: the queue-depth gauge counts the busy workspace's waiting contents.
      const scrape = await metricsRegistry.getSingleMetricAsString('lore_ingestion_queue_depth');
      const depth = new RegExp(`workspace="${workspaceLabel(busy.workspaceId)}"} (\\d+)`).exec(scrape);
      expect(Number(depth?.[1])).toBeGreaterThan(BACKLOG / 2);
      const late = await add(small, smallCollection.id, 'a small note');
      const done = await poll('the small content to complete', () => send(transport, messages.getContent, { ...small, contentId: late.id }), (c) => c.status === 'completed');

      const backlogNow = await Promise.all(backlog.map((c) => send(transport, messages.getContent, { ...busy, contentId: c.id })));
      const finishedMeanwhile = backlogNow.filter((c) => c.processed_at !== null && c.processed_at > late.created_at && c.processed_at <= (done.processed_at ?? '')).length;
      // The attempt running when it arrived, and at most one more that started before the reactor handed it over.
      expect(finishedMeanwhile).toBeLessThanOrEqual(2);
      // And it did not simply come after the backlog.
      expect(backlogNow.some((c) => c.status === 'new')).toBe(true);
    },
    120_000,
  );

  it('starts a content of a workspace with nothing running at once, though every worker is busy with another', async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    // The busy workspace's first attempt holds the only worker for 5 s.
    server.script({ delayMs: 5000 });
    running = await withOneWorker(server);
    const transport = running.transport;
    const busy = scopeOf('ws_fair_slow', 'alice');
    const small = scopeOf('ws_fair_quick', 'bob');
    const busyCollection = await send(transport, messages.createCollection, { ...busy, name: 'slow' });
    const smallCollection = await send(transport, messages.createCollection, { ...small, name: 'quick' });
    const slow = await send(transport, messages.createContent, { ...busy, collectionId: busyCollection.id, name: 'slow.txt', text: 'a slow document', mimeType: 'text/plain' });
    await poll('the slow content to start', () => send(transport, messages.getContent, { ...busy, contentId: slow.id }), (c) => c.status === 'processing');
    const quick = await send(transport, messages.createContent, { ...small, collectionId: smallCollection.id, name: 'quick.txt', text: 'a quick note', mimeType: 'text/plain' });
    await poll('the quick content to complete', () => send(transport, messages.getContent, { ...small, contentId: quick.id }), (c) => c.status === 'completed');
    expect(await send(transport, messages.getContent, { ...busy, contentId: slow.id })).toMatchObject({ status: 'processing' });
  }, 60_000);
});
