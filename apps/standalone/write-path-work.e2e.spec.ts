import { spawn, type ChildProcess } from 'node:child_process';
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
 * CPU-bound reference (a fixed JSON, hashing and allocation workload, in a process of the same
 * Node on the same machine, right before and right after), so a slower or busier machine moves
 * both. The bounds sit ~25% above what the write path costs today (README, "The write path:
 * measured"), so a 30% regression fails; each figure is the median of a few rounds.
 */
const SECRET = 'write-path-work-secret';
const WARM_UP = 200;
const COUNT = 600;
const ROUNDS = 3;
// One at a time: each write is its own commit, so the writes per operation do not depend on how busy the machine is (group commits would share them).
const CONCURRENCY = 1;
/** CPU per create, as a multiple of the reference workload's CPU time (measured 0.019–0.021; +30% ≈ 0.026). */
const MAX_CREATE_CPU_RATIO = 0.026;
/** CPU per append, likewise (measured 0.021–0.022; +30% ≈ 0.028). */
const MAX_APPEND_CPU_RATIO = 0.028;
/**
 * Write syscalls per create / append, one at a time (measured 60.6–61.0 / 70.8–71.3: the
 * pages each commit writes to a WAL, the response, the thread pool's wake-ups). Stable to
 * ±0.3, so the margin is small: one more SQLite commit per event adds about two (the webhook
 * dispatcher saving its checkpoint after every event measured 62.5 / 73.1).
 */
const MAX_WRITES_PER_CREATE = 62;
const MAX_WRITES_PER_APPEND = 72.5;

/** A fixed CPU-bound workload of the kinds the write path does (JSON, hashing, small objects); its CPU ms. */
const REFERENCE = `
const { createHash } = require('node:crypto');
const started = process.cpuUsage();
let sink = 0;
for (let i = 0; i < 40000; i++) {
  const doc = { id: 'mem_' + i, memory: 'User ' + (i % 97) + ' prefers tea number ' + i, topics: ['drinks', 't' + (i % 7)], metadata: { source: 'bench', i } };
  const text = JSON.stringify(doc);
  sink += JSON.parse(text).metadata.i + createHash('sha256').update(text).digest('hex').length;
}
const used = process.cpuUsage(started);
process.stdout.write(String((used.user + used.system) / 1000 + (sink === 0 ? 1 : 0)));
`;

function referenceCpuMs(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', REFERENCE], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve(Number(out)) : reject(new Error(`reference workload exited ${code}`))));
  });
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
  let server: ChildProcess;
  let url: string;
  let headers: Record<string, string>;

  beforeAll(async () => {
    await build({ ...bundleOptions(), entryPoints: { standalone: join(REPO_ROOT, 'apps/standalone/main.ts') }, outdir, logLevel: 'silent' });
    const port = 20_000 + (process.pid % 20_000);
    server = spawn(process.execPath, [join(outdir, 'standalone.js')], {
      env: {
        ...process.env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', LORE_MASTER_KEY: '',
        RATE_LIMIT_CALLER_PER_MINUTE: '100000000', RATE_LIMIT_CALLER_BURST: '1000000', RATE_LIMIT_WORKSPACE_PER_MINUTE: '100000000', RATE_LIMIT_WORKSPACE_BURST: '1000000',
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    url = `http://127.0.0.1:${port}`;
    const token = await new SignJWT({ workspace_id: 'work' }).setProtectedHeader({ alg: 'HS256' }).setSubject('work-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    for (let i = 0; ; i++) {
      const ready = await fetch(`${url}/ready`).then((r) => r.status === 200, () => false);
      if (ready) break;
      if (i > 300) throw new Error('Lore did not become ready');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }, 120_000);

  afterAll(async () => {
    if (server.exitCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      server.kill('SIGTERM');
      await exited;
    }
    rmSync(outdir, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  });

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
      const start = work(server.pid ?? 0);
      await inParallel(COUNT, send);
      // The processors finish the round's events (their work is part of each write's cost).
      await new Promise((resolve) => setTimeout(resolve, 300));
      const end = work(server.pid ?? 0);
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
    process.stdout.write(`memory create: ${result.cpuMs.toFixed(3)} ms CPU (×${result.cpuRatio.toFixed(4)} of a ${result.referenceMs.toFixed(0)} ms reference), ${result.writes.toFixed(2)} write syscalls\n`);
    expect(result.writes).toBeLessThanOrEqual(MAX_WRITES_PER_CREATE);
    expect(result.cpuRatio).toBeLessThanOrEqual(MAX_CREATE_CPU_RATIO);
  }, 180_000);

  it('a conversation append costs the server no more than its bound in CPU and write syscalls', async () => {
    const conversations: string[] = [];
    for (let i = 0; i < 50; i++) conversations.push((await post('/api/v1/conversations', { title: `chat ${i}` })).id ?? '');
    const result = await measure(async (i) => {
      await post(`/api/v1/conversations/${conversations[i % conversations.length]}/messages`, { content: `message ${i} about tea in the afternoon`, role: i % 2 === 0 ? 'user' : 'assistant' });
    });
    process.stdout.write(`conversation append: ${result.cpuMs.toFixed(3)} ms CPU (×${result.cpuRatio.toFixed(4)} of a ${result.referenceMs.toFixed(0)} ms reference), ${result.writes.toFixed(2)} write syscalls\n`);
    expect(result.writes).toBeLessThanOrEqual(MAX_WRITES_PER_APPEND);
    expect(result.cpuRatio).toBeLessThanOrEqual(MAX_APPEND_CPU_RATIO);
  }, 180_000);
});
