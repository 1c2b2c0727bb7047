import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { SignJWT } from 'jose';
import { bundleOptions, REPO_ROOT } from '@lore/platform/testing';

/**
 * Issue 17: the write path lost a third of its speed in small steps nobody measured. This
 * measures the WORK a standalone server does per memory create and per conversation append —
 * its CPU time (every thread) and its write syscalls (each SQLite commit writes its WAL pages:
 * a store round trip added per event shows here) — never wall time. CPU time is set against a
 * reference measured the same way right before and right after each round: the bare baseline
 * of `bench:write` (Fastify and one durable SQLite insert per request, the same sequential
 * load), so a slower or busier machine, whose wake-ups and cold caches cost a server more than
 * a tight loop, moves both alike. The CPU bounds sit 14–16% above the highest medians measured
 * today (README, "The write path: measured"), so a 30% regression fails; each figure is the
 * median of a few rounds.
 */
const SECRET = 'write-path-work-secret';
const WARM_UP = 200;
const COUNT = 600;
const ROUNDS = 3;
/** Inserts into the baseline per reference measurement (before and after each round). */
const REFERENCE_COUNT = 600;
// One at a time: each write is its own commit, so the writes per operation do not depend on how busy the machine is (group commits would share them).
const CONCURRENCY = 1;
/** CPU per create, as a multiple of the baseline's CPU per insert (measured 4.4–5.0; +0.85 ms per event, +27%, gave 6.0). */
const MAX_CREATE_CPU_RATIO = 5.7;
/** CPU per append, likewise (measured 5.4–6.3; +0.85 ms per event gave 9.2). */
const MAX_APPEND_CPU_RATIO = 7.3;
/**
 * Write syscalls per create / append, one at a time (measured 60.5–61.3 / 70.8–73.9: the pages
 * each commit writes to a WAL, the response, the thread pool's wake-ups, which vary a little
 * with timing). A commit of a few pages more per event exceeds them.
 */
const MAX_WRITES_PER_CREATE = 64;
const MAX_WRITES_PER_APPEND = 77;

/** The bare baseline of `bench:write` (Fastify + one durable better-sqlite3 insert per request): the reference. */
const BASELINE = join(REPO_ROOT, 'tools', 'bench', 'baseline-server.mjs');

async function startServer(args: readonly string[], env: Record<string, string>, readyPath: string, method: 'GET' | 'POST'): Promise<{ child: ChildProcess; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1' }, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    const ready = await fetch(url + readyPath, { method, headers: { 'content-type': 'application/json' }, ...(method === 'POST' ? { body: '{}' } : {}) }).then((r) => r.status < 300, () => false);
    if (ready) return { child, url };
    if (i > 300) throw new Error(`${args.join(' ')} did not become ready`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

async function stop(child: ChildProcess | undefined): Promise<void> {
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** utime + stime of a process (all threads), ms; and its write syscalls (/proc/<pid>/io). */
function work(pid: number): { cpuMs: number; writes: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const tick = 10; // USER_HZ is 100 on Linux
  const io = readFileSync(`/proc/${pid}/io`, 'utf8');
  return { cpuMs: (Number(fields[11]) + Number(fields[12])) * tick, writes: Number(/^syscw: (\d+)$/m.exec(io)?.[1]) };
}

async function inParallel(count: number, send: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < count) await send(next++);
  }));
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN;

(process.platform === 'linux' ? describe : describe.skip)('the write path: work per create and per append (issue 17)', () => {
  const outdir = join(REPO_ROOT, 'dist', `work-${process.pid}`);
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-write-work-'));
  let server: ChildProcess | undefined;
  let baseline: { child: ChildProcess; url: string } | undefined;
  let url: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    await build({ ...bundleOptions(), entryPoints: { standalone: join(REPO_ROOT, 'apps/standalone/main.ts') }, outdir, logLevel: 'silent' });
    baseline = await startServer([BASELINE], { BASELINE_DB: join(dataDir, 'baseline.db') }, '/items', 'POST');
    const lore = await startServer([join(outdir, 'standalone.js')], {
      DATA_DIR: join(dataDir, 'lore'), AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', LORE_MASTER_KEY: '',
      RATE_LIMIT_CALLER_PER_MINUTE: '100000000', RATE_LIMIT_CALLER_BURST: '1000000', RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000000', RATE_LIMIT_WORKSPACE_BURST: '1000000',
    }, '/ready', 'GET');
    server = lore.child;
    url = lore.url;
    const token = await new SignJWT({ workspace_id: 'work' }).setProtectedHeader({ alg: 'HS256' }).setSubject('work-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  }, 120_000);

  afterAll(async () => {
    await stop(server);
    await stop(baseline?.child);
    rmSync(outdir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** The baseline server's CPU per insert over REFERENCE_COUNT inserts sent the same way. */
  async function referenceCpuMs(): Promise<number> {
    const reference = baseline;
    if (reference === undefined) throw new Error('no baseline');
    const start = work(reference.child.pid ?? 0);
    await inParallel(REFERENCE_COUNT, async (i) => {
      const res = await fetch(`${reference.url}/items`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ memory: `User ${i % 97} prefers tea number ${i}`, topics: ['drinks'] }) });
      await res.text();
    });
    return (work(reference.child.pid ?? 0).cpuMs - start.cpuMs) / REFERENCE_COUNT;
  }

  async function post(path: string, body: unknown): Promise<{ id?: string }> {
    const res = await fetch(url + path, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text) as { id?: string };
  }

  /** Per operation: server CPU over the reference's CPU (medians of ROUNDS), and write syscalls. */
  async function measure(send: (i: number) => Promise<void>): Promise<{ cpuRatio: number; writes: number; cpuMs: number; referenceMs: number }> {
    await inParallel(WARM_UP, send);
    const ratios: number[] = [];
    const writes: number[] = [];
    const cpus: number[] = [];
    const references: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const before = await referenceCpuMs();
      const start = work(server?.pid ?? 0);
      await inParallel(COUNT, send);
      // The processors finish the round's events (their work is part of each write's cost).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const end = work(server?.pid ?? 0);
      const after = await referenceCpuMs();
      const cpuMs = (end.cpuMs - start.cpuMs) / COUNT;
      const reference = (before + after) / 2;
      cpus.push(cpuMs);
      references.push(reference);
      ratios.push(cpuMs / reference);
      writes.push((end.writes - start.writes) / COUNT);
    }
    return { cpuRatio: median(ratios), writes: median(writes), cpuMs: median(cpus), referenceMs: median(references) };
  }

  it('a memory create costs the server no more than its bound in CPU and write syscalls', async () => {
    const result = await measure(async (i) => {
      await post('/api/v1/memories', { memory: `User ${i % 97} prefers tea number ${i} in the afternoon`, topics: ['drinks', `t${i % 7}`], metadata: { source: 'work', i } });
    });
    process.stdout.write(`memory create: ${result.cpuMs.toFixed(3)} ms CPU (×${result.cpuRatio.toFixed(4)} of the baseline's ${result.referenceMs.toFixed(3)} ms per insert), ${result.writes.toFixed(2)} write syscalls\n`);
    expect(result.writes).toBeLessThanOrEqual(MAX_WRITES_PER_CREATE);
    expect(result.cpuRatio).toBeLessThanOrEqual(MAX_CREATE_CPU_RATIO);
  }, 180_000);

  it('a conversation append costs the server no more than its bound in CPU and write syscalls', async () => {
    const conversations: string[] = [];
    for (let i = 0; i < 50; i++) conversations.push((await post('/api/v1/conversations', { title: `chat ${i}` })).id ?? '');
    const result = await measure(async (i) => {
      await post(`/api/v1/conversations/${conversations[i % conversations.length]}/messages`, { content: `message ${i} about tea in the afternoon`, role: i % 2 === 0 ? 'user' : 'assistant' });
    });
    process.stdout.write(`conversation append: ${result.cpuMs.toFixed(3)} ms CPU (×${result.cpuRatio.toFixed(4)} of the baseline's ${result.referenceMs.toFixed(3)} ms per insert), ${result.writes.toFixed(2)} write syscalls\n`);
    expect(result.writes).toBeLessThanOrEqual(MAX_WRITES_PER_APPEND);
    expect(result.cpuRatio).toBeLessThanOrEqual(MAX_APPEND_CPU_RATIO);
  }, 180_000);
});
