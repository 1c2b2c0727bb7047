import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { describeWithServer } from '@lore/platform/testing';
import { call, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';
import { eventStreamName } from '@lore/platform/transport/nats';

const JWT_SECRET = 'contention-e2e-secret';
const SUBJECT_PREFIX = `contention${process.pid}`;
const ROOT = join(__dirname, '..', '..');
/**
 * A tight gateway budget stands in for a loaded machine: a burst of writers to one memory
 * that retries its conflicts past the budget gets the gateway's 503 "did not answer".
 */
const REQUEST_TIMEOUT_MS = 1_500;
const WRITERS = 32;

/** Issue 16: a burst of replaces of one memory, over NATS, is answered within the gateway's budget. */
describeWithServer('NATS_URL', 'distributed topology: concurrent replaces of one memory', (natsUrl) => {
  let topology: ChildProcess;
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-contention-'));
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };

  beforeAll(async () => {
    execFileSync(process.execPath, ['tools/build.mjs'], { cwd: ROOT, stdio: 'inherit' });
    const port = await freePort();
    topology = spawn(process.execPath, ['dist/distributed.js'], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        NATS_URL: natsUrl,
        NATS_SUBJECT_PREFIX: SUBJECT_PREFIX,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        AUTH_JWT_SECRET: JWT_SECRET,
        LOG_LEVEL: 'warn',
        LORE_MASTER_KEY: '',
        REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS),
      },
    });
    Object.assign(lore, { url: `http://127.0.0.1:${port}` });
    await waitUntilReady(lore.url, 60_000);
  }, 90_000);

  afterAll(async () => {
    if (topology.exitCode === null) {
      const exited = new Promise((resolve) => topology.once('exit', resolve));
      topology.kill('SIGTERM');
      await exited;
    }
    const nc = await connect({ servers: natsUrl });
    await (await nc.jetstreamManager()).streams.delete(eventStreamName(SUBJECT_PREFIX)).catch(() => undefined);
    await nc.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it(`answers each of ${WRITERS} concurrent replaces 200 or 409 within the budget, never 503, and loses no update`, async () => {
    const token = await mintJwt(JWT_SECRET, { sub: 'racer', workspace_id: 'contention-ws' });
    const created = await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: 'v0' } });
    expect(created.status).toBe(201);
    const id: string = created.body.memory_id;
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: WRITERS }, (_, i) => call(lore, 'POST', `/api/v1/memories/${id}/replace`, { token, body: { memory: `v${i + 1}` } })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 409)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 1_000);
    expect(statuses).toContain(200);
    // Every success replaced a distinct version: none was lost.
    const replaced = replies.filter((r) => r.status === 200).map((r) => r.body.old_memory.memory as string);
    expect(new Set(replaced).size).toBe(replaced.length);
    const conflicts = replies.filter((r) => r.status === 409);
    for (const reply of conflicts) expect(reply.body.detail).toMatch(/changed by another request at the same time/);
  }, 60_000);
});

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitUntilReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${url}/ready`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`distributed topology not ready at ${url} within ${timeoutMs} ms`);
}
