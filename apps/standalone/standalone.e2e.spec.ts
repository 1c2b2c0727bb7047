import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, describeAdmin, describeAuditVerify, describeApiKeys, describeAuth, describeConversationContext, describeConversationMessages, describeConnections, describeConversations, describeErrors, describeEventStream, describeIntegrations, describeKnowledge, describeLargeContent, describeLimits, describeMemories, describeMemorySearch, describeMemoryExtraction, startMemoryModelStandIn, describeMetrics, describeRerank, describeRoles, describeWebhooks, mintJwt, startRerankStandIns, type RerankStandIns, WEBHOOK_TEST_ENV, LIMITS_TEST_ENV, EVENTS_TEST_ENV, SseConnection, type LoreUnderTest } from '@lore/gateway/e2e';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { startStandalone } from './bootstrap';

const JWT_SECRET = 'standalone-e2e-secret';

describe('standalone app over HTTP', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-standalone-'));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '', LORE_EGRESS_ALLOW: '127.0.0.1', EVENTS_HEARTBEAT_MS: '500', ...WEBHOOK_TEST_ENV, ...LIMITS_TEST_ENV, ...EVENTS_TEST_ENV, MODELS_DIR: modelsDirForTests() };
  let running: Awaited<ReturnType<typeof startStandalone>>;
  let lore: LoreUnderTest;
  let rerank: RerankStandIns;
  let chat: Awaited<ReturnType<typeof startMemoryModelStandIn>>;

  beforeAll(async () => {
    rerank = await startRerankStandIns();
    chat = await startMemoryModelStandIn();
    running = await startStandalone({ ...env, ...rerank.env, ...chat.env });
    lore = { url: running.url, jwtSecret: JWT_SECRET };
  });
  afterAll(async () => {
    await running.app.close();
    await rerank.close();
    await chat.server.close();
  });

  describeAuth(() => lore);
  describeErrors(() => lore);
  describeApiKeys(() => lore);
  describeMemories(() => lore);
  describeKnowledge(() => lore);
  describeLargeContent(() => lore);
  describeMemorySearch(() => lore);
  describeMemoryExtraction(() => lore, () => chat.server);
  describeConversations(() => lore);
  describeConversationMessages(() => lore);
  describeConversationContext(() => lore);
  describeRerank(() => lore, () => rerank);
  describeIntegrations(() => lore);
  describeConnections(() => lore);
  describeEventStream(() => lore);
  describeWebhooks(() => lore);
  describeRoles(() => lore);
  describeMetrics(() => lore);
  describeLimits(() => lore);
  describeAdmin(() => lore);
  describeAuditVerify(() => lore, { dataDir: () => dataDir });

  it('deletes a memory permanently: after a restart its text is in no file under DATA_DIR', async () => {
    const marker = `MARKER-${Math.random().toString(36).slice(2)}-${Date.now()}`;
    const token = await mintJwt(JWT_SECRET, { sub: 'shred-user', workspace_id: 'shred-ws' });
    const created = await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: `remember ${marker}`, topics: [marker], metadata: { note: marker } } });
    expect(created.status).toBe(201);
    const id = created.body.memory_id;
    await call(lore, 'POST', `/api/v1/memories/${id}/replace`, { token, body: { memory: `still ${marker}` } });
    // Searched first, so the text is in the search index too when it is deleted.
    const found = await call(lore, 'POST', '/api/v1/memories/search', { token, body: { query: marker } });
    expect(found.body.results.map((r: { memory_id: string }) => r.memory_id)).toEqual([id]);
    expect((await call(lore, 'DELETE', `/api/v1/memories/${id}`, { token })).status).toBe(200);

    await running.app.close();
    running = await startStandalone(env);
    lore = { url: running.url, jwtSecret: JWT_SECRET };
    expect((await call(lore, 'GET', `/api/v1/memories/${id}`, { token })).status).toBe(404);

    const needle = Buffer.from(marker);
    const files = walk(dataDir);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) expect({ file, found: readFileSync(file).includes(needle) }).toEqual({ file, found: false });
  });

  it('deletes a conversation and a single message permanently: after a restart their words are in no file under DATA_DIR', async () => {
    // Ends in a digit so that no stemmer changes it in the word index; the random part is checked alone too.
    const word = (tag: string): { word: string; random: string } => {
      const random = `${Math.random().toString(36).slice(2, 10)}${tag}${Date.now() % 1000}7`;
      return { word: `ZanzibarQuokka${random}`, random };
    };
    const gone = word('c');
    const goneMessage = word('m');
    const kept = word('k');
    const token = await mintJwt(JWT_SECRET, { sub: 'conv-shred-user', workspace_id: 'conv-shred-ws' });
    const post = async (path: string, body: unknown): Promise<any> => {
      const reply = await call(lore, 'POST', path, { token, body });
      expect(reply.status).toBe(201);
      return reply.body;
    };
    const doomed = await post('/api/v1/conversations', { title: `chat ${gone.word}`, tags: [gone.word], metadata: { note: gone.word } });
    const doomedMessages = [
      await post(`/api/v1/conversations/${doomed.id}/messages`, { content: `hello ${gone.word}`, tags: [gone.word], meta_data: { w: gone.word }, client_message_id: gone.word }),
      await post(`/api/v1/conversations/${doomed.id}/messages`, { content: `reply ${gone.word}`, role: 'assistant', tool_calls: [{ arg: gone.word }], attachments: [{ name: gone.word }] }),
    ];
    const edited = await call(lore, 'PATCH', `/api/v1/messages/${doomedMessages[1].id}`, { token, body: { content: `edited ${gone.word}` } });
    expect(edited.status).toBe(200);
    const survivor = await post('/api/v1/conversations', { title: 'survivor' });
    const keptMessage = await post(`/api/v1/conversations/${survivor.id}/messages`, { content: `keep ${kept.word}` });
    const lost = await post(`/api/v1/conversations/${survivor.id}/messages`, { content: `forget ${goneMessage.word}`, meta_data: { w: goneMessage.word }, tags: [goneMessage.word] });
    await post(`/api/v1/conversations/${survivor.id}/messages`, { content: `below ${goneMessage.word}`, role: 'assistant' });
    // Searched first, so the words are in the word index when they are deleted.
    const search = async (w: string): Promise<string[]> => (await call(lore, 'GET', `/api/v1/messages?search=${w}`, { token })).body.data.map((m: { id: string }) => m.id);
    expect(await search(gone.word)).toHaveLength(3);
    expect(await search(goneMessage.word)).toHaveLength(2);
    expect(await search(kept.word)).toEqual([keptMessage.id]);

    expect((await call(lore, 'DELETE', `/api/v1/conversations/${doomed.id}`, { token })).body.deleted_messages).toBe(3);
    expect((await call(lore, 'DELETE', `/api/v1/messages/${lost.id}`, { token })).body.deleted_messages).toBe(2);
    expect(await search(gone.word)).toEqual([]);
    expect(await search(goneMessage.word)).toEqual([]);

    await running.app.close();
    running = await startStandalone(env);
    lore = { url: running.url, jwtSecret: JWT_SECRET };
    expect((await call(lore, 'GET', `/api/v1/conversations/${doomed.id}`, { token })).status).toBe(404);
    expect((await call(lore, 'GET', `/api/v1/messages/${lost.id}`, { token })).status).toBe(404);
    // The conversation's other message is all there.
    expect((await call(lore, 'GET', `/api/v1/messages/${keptMessage.id}`, { token })).body.content).toBe(`keep ${kept.word}`);
    expect(await search(kept.word)).toEqual([keptMessage.id]);
    expect((await call(lore, 'GET', `/api/v1/conversations/${survivor.id}`, { token })).body).toMatchObject({ message_count: 1, current_message_id: keptMessage.id });

    const needles = [gone, goneMessage].flatMap(({ word: w, random }) => [w, w.toLowerCase(), random]);
    const files = walk(dataDir);
    expect(files.length).toBeGreaterThan(3);
    for (const file of files) {
      const bytes = readFileSync(file);
      expect({ file, found: needles.filter((n) => bytes.includes(Buffer.from(n))) }).toEqual({ file, found: [] });
    }
  });

  it('resumes the event stream with Last-Event-ID across a restart, without gaps or repeats', async () => {
    const token = await mintJwt(JWT_SECRET, { sub: 'resume-user', workspace_id: 'resume-ws' });
    const create = async (): Promise<string> => (await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: 'resume me' } })).body.memory_id;
    const before = [await create(), await create()];
    const first = await SseConnection.open(lore, '/api/v1/events?after=0', { token });
    const seen = await first.waitForEvents(2);
    first.close();
    expect(seen.map((m) => JSON.parse(m.data ?? '').memory_id)).toEqual(before);

    await running.app.close();
    running = await startStandalone(env);
    lore = { url: running.url, jwtSecret: JWT_SECRET };
    const after = [await create(), await create()];
    const resumed = await SseConnection.open(lore, '/api/v1/events?after=0', { token, lastEventId: seen[0]?.id ?? '' });
    const rest = await resumed.waitForEvents(3);
    resumed.close();
    expect(rest.map((m) => JSON.parse(m.data ?? '').memory_id)).toEqual([before[1], ...after]);
  });

  it('refuses to start with a different master key, with a clear message', async () => {
    await expect(startStandalone({ ...env, PORT: '0', LORE_MASTER_KEY: Buffer.alloc(32, 7).toString('base64') })).rejects.toThrow(/master key/i);
  });
});

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? walk(path) : [path];
  });
}
