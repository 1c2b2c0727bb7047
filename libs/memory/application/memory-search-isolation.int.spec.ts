import { AppError } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { filesHolding, startContext, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, testEmbeddingEnv, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';
import { RECENT_WRITES } from './memory-search-positions.projection';

/**
 * Memory search on the real memory context (embedded stores, in-process transport, the real
 * search-index reactor) with an embedding server that holds the reactor's first request for
 * HOLD_MS: workspace A's memories queue up un-indexed behind it. Workspace B's search answers
 * at once with B's memories, where it used to wait for the index to reach the head of the whole
 * memory log and answer 503 after READ_YOUR_WRITES_TIMEOUT_MS; so does B's search right after
 * B's own write, which the search indexes itself (memory-search-catch-up.ts) rather than wait
 * behind A's backlog. A, with more pending writes than a search takes in itself, waits for the
 * index, and says so (503) rather than answer without them. B's delete does not wait for the
 * index either: erasure removes the memory's point itself, and the index, which had read the
 * memory before, does not write it back.
 */
const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const RYW_MS = 2_000;
/** Longer than A's backlog takes to write plus A's own 503 wait, even on a loaded machine. */
const HOLD_MS = 12_000;
/** More than a search indexes itself (RECENT_WRITES). */
const BACKLOG = RECENT_WRITES + 8;
const SETTLE_MS = 40_000;

const a = { workspaceId: 'ws_busy', userId: 'alice', actor: 'user:alice' };
const b = { workspaceId: 'ws_quiet', userId: 'bob', actor: 'user:bob' };
type Scope = typeof a;

describe("memory search: waits only for the caller's own writes", () => {
  let running: RunningContext | undefined;
  let server: TestEmbeddingServer | undefined;

  afterEach(async () => {
    await running?.stop();
    running = undefined;
    await server?.close();
    server = undefined;
  });

  const transport = (): RunningContext['transport'] => {
    if (running === undefined) throw new Error('the context is not running');
    return running.transport;
  };
  const search = (scope: Scope, query: string) => send(transport(), messages.search, { ...scope, query, limit: 10 });
  const found = (reply: Awaited<ReturnType<typeof search>>): string[] => reply.results.map((r) => r.memory.memory);
  const create = (scope: Scope, memory: string) => send(transport(), messages.create, { ...scope, memory, memoryType: 'user' });
  /** The search's reply once it no longer answers 503 (the index has caught up), within SETTLE_MS. */
  const searchOnceAnswered = async (scope: Scope, query: string, never: string): Promise<Awaited<ReturnType<typeof search>>> => {
    const deadline = Date.now() + SETTLE_MS;
    for (;;) {
      const reply = await search(scope, query).catch((e: unknown) => {
        if (e instanceof AppError && e.code === 'unavailable') return null;
        throw e;
      });
      if (reply !== null) return reply;
      if (Date.now() > deadline) throw new Error(never);
    }
  };

  it("answers another workspace at once while one workspace's memories wait for the index; the writer's own search still sees its writes", async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(memoryContext, {
      ...testEmbeddingEnv(server),
      READ_YOUR_WRITES_TIMEOUT_MS: String(RYW_MS),
    });
    const tea = await create(b, 'bob drinks green tea');
    expect(found(await search(b, 'green tea'))).toEqual(['bob drinks green tea']);

    // The index's next request (A's first memories) hangs for HOLD_MS; the rest queue behind it.
    const asked = server.requests.length;
    server.script({ delayMs: HOLD_MS });
    await create(a, 'alice note number 0');
    while (server.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 1; i < BACKLOG; i++) await create(a, `alice note number ${i}`);

    const started = Date.now();
    expect(found(await search(b, 'what does bob drink'))).toEqual(['bob drinks green tea']);
    expect(Date.now() - started).toBeLessThan(RYW_MS / 2);

    // A's own search must see A's writes: it waits for them, and says so rather than answer without them.
    const own = await search(a, 'alice note').then(() => null, (e: unknown) => e);
    expect(own).toBeInstanceOf(AppError);
    expect(own).toMatchObject({ code: 'unavailable', retryAfterSeconds: 1 }); // the gateway's Retry-After

    // B's own fresh write lies behind A's backlog: B's search indexes it itself and answers at once, with it.
    await create(b, 'bob also likes oolong');
    const fresh = Date.now();
    expect(found(await search(b, 'oolong'))).toContain('bob also likes oolong');
    expect(Date.now() - fresh).toBeLessThan(RYW_MS / 2);
    // Replaced while still behind the backlog: found as it now is.
    const replaced = await create(b, 'bob used to like rooibos');
    await send(transport(), messages.replace, { ...b, memoryId: replaced.memory_id, memory: 'bob now likes pu-erh', topics: null });
    expect(found(await search(b, 'pu-erh'))).toContain('bob now likes pu-erh');

    // Once the held request is answered, the index catches up with A's backlog, and A's search answers.
    expect(found(await searchOnceAnswered(a, 'alice note number 7', "the index never took in A's writes"))).toHaveLength(10);
    // The index's own pass over B's memories leaves them as they are now.
    expect(found(await search(b, 'pu-erh'))).toContain('bob now likes pu-erh');
    expect(found(await search(b, 'rooibos'))).not.toContain('bob used to like rooibos');

    // And a search right after B's delete no longer finds the memory.
    await send(transport(), messages.delete, { ...b, memoryId: tea.memory_id });
    expect(found(await search(b, 'green tea'))).not.toContain('bob drinks green tea');
  }, 90_000);

  it("erases another workspace's memory at once while the index is behind, and the index never writes its text back", async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(memoryContext, { ...testEmbeddingEnv(server), READ_YOUR_WRITES_TIMEOUT_MS: String(RYW_MS) });
    const dataDir = running.dataDir;
    await create(b, 'bob drinks green tea');
    expect(found(await search(b, 'green tea'))).toEqual(['bob drinks green tea']);

    // The index reads B's memory and opens its text, and its embedding hangs for HOLD_MS; A's backlog queues behind.
    const asked = server.requests.length;
    server.script({ delayMs: HOLD_MS });
    const diary = await create(b, 'bob keeps a Zanzibarquartz diary');
    while (server.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < BACKLOG; i++) await create(a, `alice note number ${i}`);

    // B's delete answers once the memory is erased, without waiting for the index to get there.
    const started = Date.now();
    await send(transport(), messages.delete, { ...b, memoryId: diary.memory_id });
    expect(Date.now() - started).toBeLessThan(RYW_MS / 2);
    expect(filesHolding(dataDir, 'Zanzibarquartz')).toEqual([]);

    // The held embedding comes back with the erased memory in its batch: its point is not written again.
    const deadline = Date.now() + SETTLE_MS;
    while ((await search(a, 'alice note').catch(() => null)) === null) {
      if (Date.now() > deadline) throw new Error("the index never took in A's writes");
    }
    expect(filesHolding(dataDir, 'Zanzibarquartz')).toEqual([]);
    expect(found(await search(b, 'diary'))).toEqual(['bob drinks green tea']);
  }, 90_000);

  it('answers searches once the index has read all there is, when erasure deleted the writes it was waiting for before it read them', async () => {
    server = await startTestEmbeddingServer({ dimensions: 64 });
    running = await startContext(memoryContext, { ...testEmbeddingEnv(server), READ_YOUR_WRITES_TIMEOUT_MS: String(RYW_MS) });
    for (let i = 0; i < BACKLOG; i++) await create(b, `bob note ${i}`);
    const deadline = Date.now() + SETTLE_MS;
    while ((await search(b, 'note').catch(() => null)) === null) if (Date.now() > deadline) throw new Error("the index never took in B's writes");

    // The index holds one batch; B's later writes, all erased before it reads them, leave it nothing to pass them with.
    const asked = server.requests.length;
    server.script({ delayMs: 3_000 });
    await create(b, 'bob trigger');
    while (server.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 10));
    for (let i = 0; i < BACKLOG; i++) await create(b, `bob late note ${i}`);
    await send(transport(), messages.deleteAllOfUser, b);

    expect(found(await searchOnceAnswered(b, 'note', "B's searches kept answering 503 after the index had read everything there is"))).toEqual([]);
  }, 90_000);
});
