import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, mintJwt } from '@lore/gateway/e2e';
import { loadConfig } from '@lore/platform/runtime';
import { openContextStores } from '@lore/platform/host';
import { startStandalone } from '../../apps/standalone/bootstrap';
import { parkedEvents, parseCommand } from './parked-events';

const JWT_SECRET = 'parked-secret';

/**
 * The standalone app over a DATA_DIR whose memory log holds an event no processor can handle
 * (written beside the app, as a bug in an older version would have): the app starts, parks
 * it, serves every other memory and says degraded; `npm run parked` (Lore stopped) lists it
 * and retries it.
 */
describe('npm run parked', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-parked-'));
  const env = { ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: JWT_SECRET, LOG_LEVEL: 'silent', LORE_MASTER_KEY: '', NATS_URL: '' };
  const poisonStream = `memory-mem_${randomUUID()}`;

  async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
    let out = '';
    let err = '';
    const code = await parkedEvents(args, { env, stdout: { write: (t: string) => (out += t) > '' }, stderr: { write: (t: string) => (err += t) > '' } });
    return { code, out, err };
  }

  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('parses its commands', () => {
    expect(parseCommand(['list', '--processor', 'p', '--workspace', 'w', '--json'])).toEqual({ action: 'list', processor: 'p', workspaceId: 'w', json: true });
    expect(parseCommand(['retry', 'abc'])).toEqual({ action: 'retry', id: 'abc', json: false });
    expect(parseCommand(['retry', '--all', '--workspace', 'w'])).toEqual({ action: 'retry', workspaceId: 'w', json: false });
    expect(parseCommand(['retry'])).toContain('retry takes one record id or --all');
    expect(parseCommand(['drop'])).toContain('usage');
  });

  it('the app parks what it cannot handle and stays ready (degraded); the tool lists it, retries it, and drops it once its stream is gone', async () => {
    const token = await mintJwt(JWT_SECRET, { sub: 'someone', workspace_id: 'ws-parked' });
    let running = await startStandalone(env);
    await running.app.close();
    const stores = await openContextStores(loadConfig(env), 'memory');
    await stores.events.append(poisonStream, [{ id: randomUUID(), type: 'memory.MemoryCreated', data: { not: 'a memory' }, metadata: { workspaceId: 'ws-parked' } }], 'no_stream');
    await stores.close();

    running = await startStandalone(env);
    try {
      const lore = { url: running.url, jwtSecret: JWT_SECRET };
      expect((await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: 'still served' } })).status).toBe(201);
      const ready = await call(lore, 'GET', '/ready');
      expect(ready.status).toBe(200);
      expect(ready.body.status).toBe('degraded');
      expect(ready.body.parked['memory.memories.v2']).toBe(1);
      expect((await call(lore, 'GET', '/api/v1/memories', { token })).body.data.map((m: { memory: string }) => m.memory)).toEqual(['still served']);
    } finally {
      await running.app.close();
    }

    const listed = await run(['list', '--json']);
    expect(listed.code).toBe(0);
    const records = listed.out.trim().split('\n').map((line) => JSON.parse(line) as { id: string; processor: string; streamId: string; workspaceId: string; reason: string });
    expect(records.length).toBeGreaterThanOrEqual(1);
    expect(records.every((r) => r.streamId === poisonStream && r.workspaceId === 'ws-parked' && r.reason === 'failed')).toBe(true);
    expect(records.map((r) => r.processor)).toContain('memory.memories.v2');
    expect((await run(['list', '--workspace', 'another'])).err).toContain('0 parked event(s)');

    const again = await run(['retry', '--all']);
    expect(again.code).toBe(1);
    expect(again.err).toContain('failed again (attempts=3)');
    expect((await run(['retry', 'no-such-record'])).code).toBe(1);

    // Gone from the log (an erasure would do this): the retry drops its records.
    const closing = await openContextStores(loadConfig(env), 'memory');
    await closing.events.deleteStream(poisonStream);
    await closing.close();
    const dropped = await run(['retry', '--all']);
    expect({ code: dropped.code, err: dropped.err }).toEqual({ code: 0, err: '' });
    expect((await run(['list'])).err).toContain('0 parked event(s)');
  });
});
