// npm run bench:contention — many concurrent replaces of ONE memory against the standalone
// app: how many succeed (200), how many lose the optimistic-concurrency race for good (409),
// anything else, the wall time, and whether an update was lost (the history must hold exactly
// 1 + successes versions, each success's new text exactly once, each success replacing a
// distinct version).
//
// Knobs (read by this script only):
//   BENCH_CONTENTION_COUNT    concurrent replaces per run (default 200)
//   BENCH_CONTENTION_RUNS     runs of the built app (default 1)
//   BENCH_BASELINE_RETRIES    also run a copy of dist/standalone.js whose memory-replace retry
//                             count is patched to this value (default 0: no retries), as the
//                             in-run baseline; "off" skips it. Skipped, with a note, when the
//                             bundle's CONFLICT_RETRIES constant cannot be found.
//   NATS_URL                  also run the distributed topology (dist/distributed.js) with
//                             BENCH_DISTRIBUTED_COUNT concurrent replaces (default 32, issue 16's
//                             case) and REQUEST_TIMEOUT_MS as set (default 10000).
//
// Any status besides 200 and 409 (a 503 "did not answer") fails the run, as a lost update does:
// the service must answer within the gateway's budget.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { Pool } from 'undici';
import { removeNatsLeftovers, freePort, stopChild } from './load.mjs';
import { BENCH_LORE_ENV } from './bench-env.mjs';
import { startFlags } from './start-flags.mjs';

const COUNT = Number(process.env.BENCH_CONTENTION_COUNT ?? 200);
const DISTRIBUTED_COUNT = Number(process.env.BENCH_DISTRIBUTED_COUNT ?? 32);
const NATS_URL = process.env.NATS_URL;
const PREFIX = `benchcontention${process.pid}`;
const RUNS = Number(process.env.BENCH_CONTENTION_RUNS ?? 1);
const BASELINE_RETRIES = process.env.BENCH_BASELINE_RETRIES ?? '0';
const SECRET = 'bench-secret';
const BUNDLE = 'dist/standalone.js';
const BASELINE_BUNDLE = 'dist/standalone.contention-baseline.js';
const children = [];
const cleanup = [];

async function start(name, entry, extraEnv = {}) {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), `lore-bench-contention-${name}-`));
  const child = spawn(process.execPath, [...startFlags(), entry], {
    env: { ...process.env, ...BENCH_LORE_ENV, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn', ...extraEnv },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const server = { child, dataDir, url: `http://127.0.0.1:${port}` };
  children.push(server);
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode} before it was ready`);
    try {
      const res = await fetch(`${server.url}/ready`);
      if (res.status < 300) return server;
    } catch {
      // not listening yet: poll again
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} did not become ready`);
}

async function stop(server) {
  const { child, dataDir } = server;
  const index = children.indexOf(server);
  if (index >= 0) children.splice(index, 1);
  await stopChild(child);
  rmSync(dataDir, { recursive: true, force: true });
}

async function json(pool, method, path, headers, body) {
  const res = await pool.request({ method, path, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.body.text();
  let parsed = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    // not JSON: keep the text
  }
  return { status: res.statusCode, body: parsed };
}

/** One memory, COUNT replaces of it fired at once, then the lost-update checks. */
async function contend(url, count = COUNT) {
  const token = await new SignJWT({ workspace_id: 'bench' }).setProtectedHeader({ alg: 'HS256' }).setSubject('bench-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
  const headers = { authorization: `Bearer ${token}` };
  const pool = new Pool(url, { connections: count, pipelining: 1 });
  try {
    const created = await json(pool, 'POST', '/api/v1/memories', headers, { memory: 'v0', topics: ['bench'] });
    if (created.status !== 201) throw new Error(`create answered ${created.status}: ${JSON.stringify(created.body)}`);
    const id = created.body.memory_id;
    const path = `/api/v1/memories/${id}/replace`;
    // Warm the connections so the replaces start together instead of queueing on TCP handshakes.
    await Promise.all(Array.from({ length: count }, () => json(pool, 'GET', `/api/v1/memories/${id}`, headers)));

    const started = process.hrtime.bigint();
    const replies = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const t0 = process.hrtime.bigint();
        const reply = await json(pool, 'POST', path, headers, { memory: `replace ${i}` });
        return { i, ...reply, ms: Number(process.hrtime.bigint() - t0) / 1e6 };
      }),
    );
    const totalMs = Number(process.hrtime.bigint() - started) / 1e6;

    const ok = replies.filter((r) => r.status === 200);
    const conflicts = replies.filter((r) => r.status === 409);
    const others = replies.filter((r) => r.status !== 200 && r.status !== 409);
    const otherStatuses = {};
    for (const r of others) otherStatuses[r.status] = (otherStatuses[r.status] ?? 0) + 1;

    const history = await json(pool, 'GET', `/api/v1/memories/${id}/history`, headers);
    const current = await json(pool, 'GET', `/api/v1/memories/${id}`, headers);
    const problems = [];
    if (history.status !== 200) problems.push(`history answered ${history.status}`);
    const versions = history.body?.versions ?? [];
    if (versions.length !== 1 + ok.length) problems.push(`history holds ${versions.length} versions, expected 1 + ${ok.length}`);
    const texts = versions.map((v) => v.memory);
    for (const r of ok) {
      const seen = texts.filter((t) => t === `replace ${r.i}`).length;
      if (seen !== 1) problems.push(`replace ${r.i} answered 200 but appears ${seen} times in the history`);
      if (r.body?.new_memory?.memory !== `replace ${r.i}`) problems.push(`replace ${r.i} answered new_memory ${JSON.stringify(r.body?.new_memory?.memory)}`);
    }
    const olds = ok.map((r) => r.body?.old_memory?.memory);
    if (new Set(olds).size !== ok.length) problems.push(`${ok.length - new Set(olds).size} successes claim to have replaced the same version`);
    if (current.body?.memory !== texts.at(-1)) problems.push(`current text ${JSON.stringify(current.body?.memory)} is not the last version ${JSON.stringify(texts.at(-1))}`);
    const conflictDetail = conflicts[0]?.body?.detail;
    const latencies = replies.map((r) => r.ms).sort((a, b) => a - b);
    const at = (q) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))];
    return { ok: ok.length, conflicts: conflicts.length, otherStatuses, firstOther: others[0] ? `${others[0].status} ${JSON.stringify(others[0].body).slice(0, 200)}` : null, totalMs, p50: at(0.5), p95: at(0.95), max: latencies.at(-1), versions: versions.length, problems, conflictDetail };
  } finally {
    await pool.close();
  }
}

function report(label, r) {
  const other = Object.keys(r.otherStatuses).length === 0 ? 'none' : Object.entries(r.otherStatuses).map(([s, n]) => `${s}×${n}`).join(' ');
  console.log(`${label}`);
  console.log(`  200: ${r.ok}   409: ${r.conflicts}   other: ${other}${r.firstOther ? ` (first: ${r.firstOther})` : ''}`);
  console.log(`  total ${r.totalMs.toFixed(0)} ms   latency p50 ${r.p50.toFixed(1)} ms  p95 ${r.p95.toFixed(1)} ms  max ${r.max.toFixed(1)} ms`);
  console.log(`  history: ${r.versions} versions (expected ${1 + r.ok})   lost updates: ${r.problems.length === 0 ? 'none' : 'YES'}`);
  for (const p of r.problems.slice(0, 10)) console.log(`    ! ${p}`);
  if (r.conflictDetail !== undefined) console.log(`  409 detail: ${JSON.stringify(r.conflictDetail)}`);
}

/** A copy of the bundle with the memory replace's retry count patched, or null when it cannot be found. */
function baselineBundle(retries) {
  const source = readFileSync(BUNDLE, 'utf8');
  const pattern = /\bCONFLICT_RETRIES = \d+;/g;
  const found = source.match(pattern) ?? [];
  if (found.length !== 1) return null;
  writeFileSync(BASELINE_BUNDLE, source.replace(pattern, `CONFLICT_RETRIES = ${retries};`));
  cleanup.push(BASELINE_BUNDLE);
  return { entry: BASELINE_BUNDLE, built: found[0] };
}

let failed = false;
try {
  console.log(`bench:contention  ${COUNT} concurrent replaces of one memory, node ${process.version}, ${cpus().length} cores`);
  const results = [];
  for (let run = 1; run <= RUNS; run++) {
    const server = await start('standalone', BUNDLE);
    results.push(await contend(server.url));
    await stop(server);
    report(`standalone (as built)${RUNS > 1 ? ` run ${run}/${RUNS}` : ''}`, results.at(-1));
  }
  if (BASELINE_RETRIES !== 'off') {
    const baseline = baselineBundle(Number(BASELINE_RETRIES));
    if (baseline === null) {
      console.log(`baseline skipped: ${BUNDLE} does not hold exactly one "CONFLICT_RETRIES = <n>;" to patch`);
    } else {
      const server = await start('baseline', baseline.entry);
      const r = await contend(server.url);
      await stop(server);
      report(`baseline (bundle patched from "${baseline.built}" to ${BASELINE_RETRIES} retries)`, r);
      results.push(r);
    }
  }
  if (NATS_URL) {
    const server = await start('distributed', 'dist/distributed.js', { NATS_URL, NATS_SUBJECT_PREFIX: PREFIX });
    const r = await contend(server.url, DISTRIBUTED_COUNT);
    await stop(server);
    await removeNatsLeftovers(NATS_URL, PREFIX);
    report(`distributed (${DISTRIBUTED_COUNT} concurrent, REQUEST_TIMEOUT_MS ${process.env.REQUEST_TIMEOUT_MS ?? 10000})`, r);
    results.push(r);
  }
  const lost = results.some((r) => r.problems.length > 0);
  const unanswered = results.some((r) => Object.keys(r.otherStatuses).length > 0);
  failed = lost || unanswered;
  if (lost) console.log('\nLOST UPDATES DETECTED');
  if (unanswered) console.log('\nSTATUSES OTHER THAN 200/409 (the service did not answer within the budget)');
} finally {
  for (const c of [...children]) await stop(c);
  for (const f of cleanup) rmSync(f, { force: true });
}
process.exitCode = failed ? 1 : 0;
