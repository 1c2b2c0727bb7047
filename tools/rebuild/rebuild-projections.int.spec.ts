import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, mintJwt } from '@lore/gateway/e2e';
import { loadConfig } from '@lore/platform/runtime';
import { openContextStores } from '@lore/platform/host';
import { startStandalone } from '../../apps/standalone/bootstrap';
import { rebuildProjections } from './rebuild-projections';

const JWT_SECRET = 'rebuild-secret';

describe('npm run projections:rebuild', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-rebuild-'));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '' };
  let token: string;

  async function run(names: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await rebuildProjections(names, { env, stdout: { write: (t: string) => (out += t) > '' }, stderr: { write: (t: string) => (err += t) > '' } });
    return { code, out, err };
  }

  /** What each context's read models serve, as a client sees it. */
  let expected: Record<string, unknown>;
  async function served(lore: { url: string; jwtSecret: string }): Promise<Record<string, unknown>> {
    const get = async (path: string) => (await call(lore, 'GET', path, { token })).body;
    return {
      memories: await get('/api/v1/memories'),
      apiKeys: await get('/api/v1/api-keys'),
      conversations: await get('/api/v1/conversations'),
      messages: await get('/api/v1/messages'),
      collections: await get('/api/v1/collections'),
      connections: await get('/api/v1/connections'),
      webhooks: await get('/api/v1/webhooks'),
    };
  }

  beforeAll(async () => {
    token = await mintJwt(JWT_SECRET, { sub: 'rebuilder', workspace_id: 'rebuild-ws' });
    const running = await startStandalone(env);
    const lore = { url: running.url, jwtSecret: JWT_SECRET };
    for (const memory of ['one', 'two', 'three']) expect((await call(lore, 'POST', '/api/v1/memories', { token, body: { memory } })).status).toBe(201);
    expect((await call(lore, 'POST', '/api/v1/api-keys', { token, body: { label: 'k' } })).status).toBe(201);
    const conversation = await call(lore, 'POST', '/api/v1/conversations', { token, body: { title: 'rebuilt chat' } });
    expect((await call(lore, 'POST', `/api/v1/conversations/${conversation.body.id}/messages`, { token, body: { content: 'rebuilt message' } })).status).toBe(201);
    expect((await call(lore, 'POST', '/api/v1/collections', { token, body: { name: 'rebuilt collection' } })).status).toBe(201);
    expect((await call(lore, 'POST', '/api/v1/connections', { token, body: { integration: 'custom', label: 'rebuilt connection', auth_method_id: 'api_key', credentials: { api_key: 'rebuild-secret-0123456789abcdef' } } })).status).toBe(201);
    const webhook = await call(lore, 'POST', '/api/v1/webhooks', { token, body: { url: 'https://hooks.example.com/lore', event_types: ['memory.*'] } });
    expect(webhook.status).toBe(201);
    expect((await call(lore, 'PATCH', `/api/v1/webhooks/${webhook.body.id}`, { token, body: { status: 'disabled' } })).status).toBe(200);
    expected = await served(lore);
    await running.app.close();
  });


  it('rebuilds every projection of every context, reports each, exits 0, and the read models serve the same data', async () => {
    const { code, out, err } = await run([]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    for (const name of ['keys.api-keys.v2', 'memory.memories.v2', 'memory.memory-versions.v2']) expect(out).toContain(`${name}: rebuilt`);
    expect(out).not.toContain('integration-events');
    for (const name of ['conversations', 'connections.connections.v1']) expect(out).toMatch(new RegExp(`${name}[^\n]*: rebuilt`));
    const running = await startStandalone(env);
    try {
      const lore = { url: running.url, jwtSecret: JWT_SECRET };
      const listed = await call(lore, 'GET', '/api/v1/memories', { token });
      expect(listed.body.data.map((m: { memory: string }) => m.memory).sort()).toEqual(['one', 'three', 'two']);
      // Every context's read models serve the same as before the rebuild.
      expect(await served(lore)).toEqual(expected);
    } finally {
      await running.app.close();
    }
  });

  it('rebuilds only the named projection, and fails on a name it does not know', async () => {
    const one = await run(['memory.memories.v2']);
    expect(one.code).toBe(0);
    expect(one.out).toContain('memory.memories.v2: rebuilt');
    expect(one.out).not.toContain('memory-versions');
    const unknown = await run(['memory.nothing.v1']);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain('memory.nothing.v1');
  });

  it('exits non-zero, without hanging, when a projection fails on an event', async () => {
    const stores = await openContextStores(loadConfig(env), 'memory');
    await stores.events.append(`memory-mem_${randomUUID()}`, [{ id: randomUUID(), type: 'memory.MemoryCreated', data: { not: 'a memory' } }], 'no_stream');
    await stores.close();
    const { code, err } = await run([]);
    expect(code).toBe(1);
    expect(err).toContain('memory.memories.v2');
  });
});
