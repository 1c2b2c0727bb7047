// npm run bench:write — memory writes and reads against the standalone app and the
// distributed topology (over the NATS at NATS_URL), beside a bare Fastify + better-sqlite3
// baseline doing one insert per request. Prints throughput, p50/p95 and ratios.
// Knobs: BENCH_COUNT (default 5000 per operation), BENCH_CONCURRENCY (default 32).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { freePort, runLoad, stopChild, deleteEventStream } from './load.mjs';
import { BENCH_RATE_LIMITS } from './bench-limits.mjs';

const COUNT = Number(process.env.BENCH_COUNT ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SECRET = 'bench-secret';
const children = [];

async function start(name, args, env, readyPath) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `lore-bench-${name}-`));
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...BENCH_RATE_LIMITS, ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BASELINE_DB: join(dataDir, 'baseline.db'), AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push({ child, dataDir });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      const res = await fetch(url + readyPath, { method: readyPath === '/items' ? 'POST' : 'GET', headers: { 'content-type': 'application/json' }, body: readyPath === '/items' ? '{}' : undefined });
      if (res.status < 300) return { url, child };
    } catch {
      // not listening yet: poll again
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not become ready`);
}

const stop = ({ child }) => stopChild(child);

const body = (i) => ({ memory: `User ${i % 97} prefers tea number ${i} in the afternoon`, topics: ['drinks', `t${i % 7}`], metadata: { source: 'bench', i } });

async function benchLore(name, url) {
  const token = await new SignJWT({ workspace_id: 'bench' }).setProtectedHeader({ alg: 'HS256' }).setSubject('bench-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  const headers = { authorization: `Bearer ${token}` };
  const ids = new Array(COUNT);
  const create = await runLoad({
    url, concurrency: CONCURRENCY, count: COUNT,
    request: (i) => ({ method: 'POST', path: '/api/v1/memories', body: body(i), headers }),
  });
  // Ids for the read and replace phases, created beforehand so those phases measure only themselves.
  const list = [];
  let cursor = null;
  do {
    const res = await fetch(`${url}/api/v1/memories?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { headers });
    const page = await res.json();
    list.push(...page.data.map((m) => m.memory_id));
    cursor = page.next_cursor;
  } while (cursor && list.length < COUNT);
  for (let i = 0; i < COUNT; i++) ids[i] = list[i % list.length];
  const get = await runLoad({ url, concurrency: CONCURRENCY, count: COUNT, request: (i) => ({ method: 'GET', path: `/api/v1/memories/${ids[i]}`, headers }) });
  const replace = await runLoad({
    url, concurrency: CONCURRENCY, count: COUNT,
    request: (i) => ({ method: 'POST', path: `/api/v1/memories/${ids[i]}/replace`, body: { memory: `replaced ${i}`, topics: null }, headers }),
  });
  return { name, create, get, replace };
}

function row(label, r, base) {
  const ratio = base ? `  p50 ×${(r.p50 / base.p50).toFixed(2)}  throughput ×${(r.throughput / base.throughput).toFixed(2)}` : '';
  const fails = r.failures ? `  FAILURES ${r.failures} (${r.firstFailure})` : '';
  return `${label.padEnd(28)} ${r.throughput.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p95 ${r.p95.toFixed(2).padStart(7)} ms${ratio}${fails}`;
}

try {
  console.log(`bench:write  count=${COUNT} per operation, concurrency=${CONCURRENCY}, node ${process.version}, ${(await import('node:os')).cpus().length} cores`);
  const baselineServer = await start('baseline', ['tools/bench/baseline-server.mjs'], {}, '/items');
  const baseline = await runLoad({ url: baselineServer.url, concurrency: CONCURRENCY, count: COUNT, request: (i) => ({ method: 'POST', path: '/items', body: body(i) }) });
  await stop(baselineServer);

  const standaloneServer = await start('standalone', ['dist/standalone.js'], {}, '/ready');
  const standalone = await benchLore('standalone', standaloneServer.url);
  await stop(standaloneServer);

  const distributedServer = await start('distributed', ['dist/distributed.js'], { NATS_URL, NATS_SUBJECT_PREFIX: `bench${process.pid}` }, '/ready');
  const distributed = await benchLore('distributed', distributedServer.url);
  await stop(distributedServer);
  await deleteEventStream(NATS_URL, `bench${process.pid}`);

  console.log('');
  console.log(row('baseline insert (bare)', baseline));
  for (const r of [standalone, distributed]) {
    console.log(row(`${r.name} create`, r.create, baseline));
    console.log(row(`${r.name} get`, r.get, baseline));
    console.log(row(`${r.name} replace`, r.replace, baseline));
  }
  console.log('');
  console.log(`standalone create: ${standalone.create.throughput.toFixed(0)}/s (target ≥ 2000/s), p50 ×${(standalone.create.p50 / baseline.p50).toFixed(2)} of baseline (target ≤ 2.5)`);
  console.log(`distributed create p50 ×${(distributed.create.p50 / standalone.create.p50).toFixed(2)} of standalone (target ≤ 1.5); get ×${(distributed.get.p50 / standalone.get.p50).toFixed(2)}; replace ×${(distributed.replace.p50 / standalone.replace.p50).toFixed(2)}`);
} finally {
  for (const c of children) {
    await stop(c);
    rmSync(c.dataDir, { recursive: true, force: true });
  }
}
