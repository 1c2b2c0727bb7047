// npm run bench:write — memory writes and reads against the standalone app and the
// distributed topology (over the NATS at NATS_URL), beside a bare Fastify + better-sqlite3
// baseline doing one insert per request. Prints throughput, p50/p95, ratios and the server's
// CPU per create (its process CPU time from /proc: every thread, and the main thread alone),
// the steady figure on a shared machine, where the disk-bound baseline swings.
// Knobs: BENCH_COUNT (default 5000 per operation), BENCH_CONCURRENCY (default 32),
// BENCH_ROUNDS (default 1: baseline and standalone creates repeated, interleaved),
// BENCH_REF (another checkout, built: its dist/standalone.js is measured in each round beside
// this one's, e.g. a worktree of an older commit), BENCH_PARTS (default create,warm,get,replace,distributed;
// `warm` adds a second create phase on the same server, after the first: the per-create figures once
// V8 has compiled the hot path, beside the first phase's, which include that compilation).
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { SignJWT } from 'jose';
import { freePort, median, runLoad, stopChild, removeNatsLeftovers } from './load.mjs';
import { BENCH_LORE_ENV } from './bench-env.mjs';
import { formatCpu, withServerCpu } from './server-cpu.mjs';
import { startFlags } from './start-flags.mjs';

const COUNT = Number(process.env.BENCH_COUNT ?? 5000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const REF = process.env.BENCH_REF ? resolve(process.env.BENCH_REF) : null;
const PARTS = new Set((process.env.BENCH_PARTS ?? 'create,warm,get,replace,distributed').split(','));
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const SECRET = 'bench-secret';
const children = [];

async function start(name, args, env, readyPath) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `lore-bench-${name}-`));
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...BENCH_LORE_ENV, ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, BASELINE_DB: join(dataDir, 'baseline.db'), AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' },
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

async function benchLore(name, { url, child }, parts) {
  const token = await new SignJWT({ workspace_id: 'bench' }).setProtectedHeader({ alg: 'HS256' }).setSubject('bench-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  const headers = { authorization: `Bearer ${token}` };
  const ids = new Array(COUNT);
  const creates = { pid: child.pid, url, path: '/api/v1/memories', headers };
  const create = await createPhase(creates, 0);
  const warm = parts.has('warm') ? await createPhase(creates, COUNT) : null;
  if (!parts.has('get') && !parts.has('replace')) return { name, create, warm };
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
  const get = parts.has('get') ? await runLoad({ url, concurrency: CONCURRENCY, count: COUNT, request: (i) => ({ method: 'GET', path: `/api/v1/memories/${ids[i]}`, headers }) }) : null;
  const replace = parts.has('replace')
    ? await runLoad({
        url, concurrency: CONCURRENCY, count: COUNT,
        request: (i) => ({ method: 'POST', path: `/api/v1/memories/${ids[i]}/replace`, body: { memory: `replaced ${i}`, topics: null }, headers }),
      })
    : null;
  return { name, create, warm, get, replace };
}

/**
 * COUNT creates (bodies from number `offset` on) and the server's CPU meanwhile (distributed: the
 * launcher's tree, the gateway and every service). A second phase on the same server is the warm one.
 */
async function createPhase({ pid, url, path, headers = {} }, offset) {
  const { result, cpu } = await withServerCpu(pid, COUNT, () =>
    runLoad({ url, concurrency: CONCURRENCY, count: COUNT, request: (i) => ({ method: 'POST', path, body: body(offset + i), headers }) }),
  );
  result.cpu = cpu;
  return result;
}

function row(label, r, base) {
  const ratio = base ? `  p50 ×${(r.p50 / base.p50).toFixed(2)}  throughput ×${(r.throughput / base.throughput).toFixed(2)}` : '';
  const fails = r.failures ? `  FAILURES ${r.failures} (${r.firstFailure})` : '';
  const cpu = r.cpu ? `  ${formatCpu(r.cpu)}` : '';
  return `${label.padEnd(28)} ${r.throughput.toFixed(0).padStart(7)}/s  p50 ${r.p50.toFixed(2).padStart(7)} ms  p95 ${r.p95.toFixed(2).padStart(7)} ms${ratio}${cpu}${fails}`;
}

const load = () => `load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`;

/** The bare baseline's inserts: a first phase, and with `warm` a second on the same server, as Lore's. */
async function baselineRound() {
  const server = await start('baseline', ['tools/bench/baseline-server.mjs'], {}, '/items');
  const inserts = { pid: server.child.pid, url: server.url, path: '/items' };
  const result = await createPhase(inserts, 0);
  if (PARTS.has('warm')) result.warm = await createPhase(inserts, COUNT);
  await stop(server);
  return result;
}

async function standaloneRound(name, args, parts) {
  const server = await start(name, args, {}, '/ready');
  const result = await benchLore(name, server, parts);
  await stop(server);
  return result;
}

try {
  console.log(`bench:write  count=${COUNT} per operation, concurrency=${CONCURRENCY}, rounds=${ROUNDS}, node ${process.version}, ${(await import('node:os')).cpus().length} cores${REF ? `, reference ${REF}` : ''}`);
  const totals = { baseline: [], standalone: [], ref: [], baselineWarm: [], standaloneWarm: [], refWarm: [] };
  let last = null;
  for (let round = 1; round <= ROUNDS; round++) {
    const baseline = await baselineRound();
    const createParts = new Set(PARTS.has('warm') ? ['create', 'warm'] : ['create']);
    const standalone = await standaloneRound('standalone', [...startFlags(), 'dist/standalone.js'], round === ROUNDS ? PARTS : createParts);
    const ref = REF ? await standaloneRound('reference', [...startFlags(REF), join(REF, 'dist/standalone.js')], createParts) : null;
    totals.baseline.push(baseline);
    if (baseline.warm) totals.baselineWarm.push(baseline.warm);
    totals.standalone.push(standalone.create);
    if (ref) totals.ref.push(ref.create);
    if (standalone.warm) totals.standaloneWarm.push(standalone.warm);
    if (ref?.warm) totals.refWarm.push(ref.warm);
    console.log(`\nround ${round} (${load()})`);
    console.log(row('baseline insert (bare)', baseline));
    console.log(row('standalone create', standalone.create, baseline));
    if (ref) console.log(row('reference create', ref.create, baseline));
    if (baseline.warm) console.log(row('baseline insert, warm', baseline.warm));
    if (standalone.warm) console.log(row('standalone create, warm', standalone.warm, baseline.warm));
    if (ref?.warm) console.log(row('reference create, warm', ref.warm, baseline.warm));
    last = { baseline, standalone };
  }
  const { baseline, standalone } = last;
  let distributed = null;
  if (PARTS.has('distributed')) {
    const distributedServer = await start('distributed', [...startFlags(), 'dist/distributed.js'], { NATS_URL, NATS_SUBJECT_PREFIX: `bench${process.pid}` }, '/ready');
    distributed = await benchLore('distributed', distributedServer, PARTS);
    await stop(distributedServer);
    await removeNatsLeftovers(NATS_URL, `bench${process.pid}`);
  }

  console.log(`\nlast round in full (${load()})`);
  console.log(row('baseline insert (bare)', baseline));
  for (const r of [standalone, distributed].filter(Boolean)) {
    console.log(row(`${r.name} create`, r.create, baseline));
    if (r.get) console.log(row(`${r.name} get`, r.get, baseline));
    if (r.replace) console.log(row(`${r.name} replace`, r.replace, baseline));
  }
  const med = (runs, pick) => median(runs.map(pick));
  console.log(`\nmedians over ${ROUNDS} round(s):`);
  for (const [label, runs] of [['baseline', totals.baseline], ['standalone', totals.standalone], ['reference', totals.ref], ['baseline, warm', totals.baselineWarm], ['standalone, warm', totals.standaloneWarm], ['reference, warm', totals.refWarm]]) {
    if (runs.length === 0) continue;
    console.log(`  ${label.padEnd(17)} ${med(runs, (r) => r.throughput).toFixed(0).padStart(6)}/s  p50 ${med(runs, (r) => r.p50).toFixed(2)} ms  cpu/create ${med(runs, (r) => r.cpu.totalMsPer).toFixed(3)} ms (main ${med(runs, (r) => r.cpu.mainMsPer).toFixed(3)})`);
  }
  const ratios = (runs, bases, pick) => runs.map((r, i) => pick(r, bases[i]).toFixed(2)).join(', ');
  const againstBaseline = (runs, bases) => `${ratios(runs, bases, (r, b) => r.throughput / b.throughput)} (target ≥ 1.0); p50 ×baseline: ${ratios(runs, bases, (r, b) => r.p50 / b.p50)} (target ≤ 1.1)`;
  console.log(`standalone create throughput ×baseline per round: ${againstBaseline(totals.standalone, totals.baseline)}`);
  if (totals.baselineWarm.length) console.log(`  warm, against the baseline's second phase: ${againstBaseline(totals.standaloneWarm, totals.baselineWarm)}`);
  const cpuRatios = (ours, theirs) => ours.map((r, i) => (r.cpu.totalMsPer / theirs[i].cpu.totalMsPer).toFixed(2)).join(', ');
  if (totals.ref.length) console.log(`standalone cpu/create ×reference per round: ${cpuRatios(totals.standalone, totals.ref)} (target ≤ 1.0)`);
  if (totals.refWarm.length) console.log(`  warm (the second ${COUNT} creates): ${cpuRatios(totals.standaloneWarm, totals.refWarm)}`);
  if (distributed) console.log(`distributed create p50 ×${(distributed.create.p50 / standalone.create.p50).toFixed(2)} of standalone (target ≤ 1.3)${distributed.get ? `; get ×${(distributed.get.p50 / standalone.get.p50).toFixed(2)}` : ''}${distributed.replace ? `; replace ×${(distributed.replace.p50 / standalone.replace.p50).toFixed(2)}` : ''}`);
} finally {
  for (const c of children) {
    await stop(c);
    rmSync(c.dataDir, { recursive: true, force: true });
  }
}
