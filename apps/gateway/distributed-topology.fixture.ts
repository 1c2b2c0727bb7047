import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'nats';
import { buildDistOnce } from '@lore/platform/testing';
import { eventStreamName, rateLimitBucketName } from '@lore/platform/transport/nats';

const ROOT = join(__dirname, '..', '..');

/** The distributed topology as `npm run start:distributed` runs it: the gateway and one process per context, over NATS. */
export interface DistributedTopology {
  readonly url: string;
  readonly process: ChildProcess;
  /** The DATA_DIR every process keeps its own folder under. */
  readonly dataDir: string;
  /** Stops every process, then removes what the run left on NATS (its event stream, its rate-limit buckets) and its DATA_DIR. */
  stop(): Promise<void>;
}

/**
 * Builds and starts `dist/distributed.js` with its own DATA_DIR and subject prefix, and
 * resolves once `/ready` answers 200. `env` goes over the defaults (a `LOG_LEVEL` of `warn`,
 * a master key generated per service); `stdout: 'pipe'` keeps the log lines for the caller.
 */
export async function startDistributedTopology(options: {
  readonly natsUrl: string;
  readonly subjectPrefix: string;
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: 'pipe' | 'ignore';
  readonly readyTimeoutMs?: number;
  /** The gateway's port, when the caller must know it before the start (LORE_PUBLIC_BASE_URL); a free one otherwise. */
  readonly port?: number;
}): Promise<DistributedTopology> {
  buildDistOnce();
  const port = options.port ?? (await freePort());
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-distributed-'));
  const child = spawn(process.execPath, ['dist/distributed.js'], {
    cwd: ROOT,
    // Piped either way: without a caller for them, the last lines explain a start that never got ready.
    stdio: ['ignore', 'pipe', 'inherit'],
    env: {
      ...process.env,
      NATS_URL: options.natsUrl,
      NATS_SUBJECT_PREFIX: options.subjectPrefix,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      LORE_MASTER_KEY: '',
      ...options.env,
    },
  });
  const lastLines = options.stdout === 'pipe' ? null : keepLastLines(child, 40);
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    // The run's integration-event stream (file storage, kept for days) and buckets go with the run.
    const nc = await connect({ servers: options.natsUrl });
    const jsm = await nc.jetstreamManager();
    await jsm.streams.delete(eventStreamName(options.subjectPrefix)).catch(() => undefined);
    await jsm.streams.delete(`KV_${rateLimitBucketName(options.subjectPrefix)}`).catch(() => undefined);
    await nc.close();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitUntilReady(url, options.readyTimeoutMs ?? 60_000);
  } catch (error) {
    const exited = child.exitCode !== null || child.signalCode !== null ? `; it exited (${child.exitCode ?? child.signalCode})` : '';
    await stop();
    throw new Error(`${(error as Error).message}${exited}${lastLines === null ? '' : `; its last log lines:\n${lastLines().join('\n')}`}`);
  }
  return { url, process: child, dataDir, stop };
}

/** A free port on 127.0.0.1 (the e2e libraries' `freePort` too: app code may not import test libraries). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || address === null) throw new Error('no port');
  return address.port;
}

/** `count` consecutive free ports (a random start, tried until every one is free). */
export async function freePortRange(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const start = 20_000 + Math.floor(Math.random() * 40_000);
    const free = await Promise.all(Array.from({ length: count }, (_, i) => isFree(start + i)));
    if (free.every(Boolean)) return start;
  }
  throw new Error(`no ${count} consecutive free ports`);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Reads a child's stdout, keeping its last `count` lines (LOG_LEVEL warn: its warnings and errors). */
function keepLastLines(child: ChildProcess, count: number): () => string[] {
  const lines: string[] = [];
  let partial = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    const parts = (partial + chunk).split('\n');
    partial = parts.pop() ?? '';
    lines.push(...parts.filter((line) => line !== ''));
    lines.splice(0, Math.max(0, lines.length - count));
  });
  return () => [...lines, ...(partial === '' ? [] : [partial])];
}

async function waitUntilReady(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(`${url}/ready`);
      if (res.status === 200) return;
      last = `${res.status} ${(await res.text()).slice(0, 500)}`;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`distributed topology not ready at ${url} within ${timeoutMs} ms (/ready: ${last})`);
}
