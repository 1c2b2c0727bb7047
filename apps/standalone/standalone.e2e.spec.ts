import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, describeApiKeys, describeAuth, describeErrors, describeKnowledge, describeLargeContent, describeMemories, describeMemorySearch, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { startStandalone } from './bootstrap';

const JWT_SECRET = 'standalone-e2e-secret';

describe('standalone app over HTTP', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-standalone-'));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '', MODELS_DIR: modelsDirForTests() };
  let running: Awaited<ReturnType<typeof startStandalone>>;
  let lore: LoreUnderTest;

  beforeAll(async () => {
    running = await startStandalone(env);
    lore = { url: running.url, jwtSecret: JWT_SECRET };
  });
  afterAll(async () => {
    await running.app.close();
  });

  describeAuth(() => lore);
  describeErrors(() => lore);
  describeApiKeys(() => lore);
  describeMemories(() => lore);
  describeKnowledge(() => lore);
  describeLargeContent(() => lore);
  describeMemorySearch(() => lore);

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
