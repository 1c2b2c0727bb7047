import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeWithServer } from '@lore/platform/testing';
import { describeApiKeys, describeAuth, describeErrors, describeMemories, type LoreUnderTest } from '@lore/gateway/e2e';

const JWT_SECRET = 'distributed-e2e-secret';
const ROOT = join(__dirname, '..', '..');

/** The same black-box suites against the gateway and every context as separate processes over real NATS. */
describeWithServer('NATS_URL', 'distributed topology over NATS', (natsUrl) => {
  let topology: ChildProcess;
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
        // Its own subject space, so parallel runs on one NATS never answer each other.
        NATS_SUBJECT_PREFIX: `e2e${process.pid}`,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: mkdtempSync(join(tmpdir(), 'lore-distributed-')),
        AUTH_JWT_SECRET: JWT_SECRET,
        LOG_LEVEL: 'warn',
        LORE_MASTER_KEY: '',
      },
    });
    Object.assign(lore, { url: `http://127.0.0.1:${port}` });
    await waitUntilReady(lore.url, 30_000);
  }, 60_000);

  afterAll(async () => {
    if (topology.exitCode === null) {
      const exited = new Promise((resolve) => topology.once('exit', resolve));
      topology.kill('SIGTERM');
      await exited;
    }
  });

  describeAuth(() => lore);
  describeErrors(() => lore);
  describeApiKeys(() => lore);
  describeMemories(() => lore);
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
