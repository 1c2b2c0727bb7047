// npm run bench:events — integration events on their way out of Lore:
//  1. end-to-end latency at a steady rate of POST /api/v1/memories: from the request (and
//     from its 201 reply) to the memory.created event on an SSE client of GET /api/v1/events
//     and, distributed, on a JetStream consumer of the events stream; the standalone app's SSE
//     too. Baselines measured in the same run at the same rate: a bare NATS core
//     publish→subscribe and a bare JetStream publish→consume.
//  2. catch-up: BENCH_EVENTS synthetic events already stored, read from the start by an SSE
//     client, by the product's EventFeed (JetStream distributed), and by a bare nats.js
//     consumer (baseline); standalone, by an SSE client beside the SQLite feed read in-process.
//     Beside each SSE figure: the server's CPU time per event (Linux), the steady measure when
//     the machine is shared, and the load average.
// dist/ bundles only whole apps, so the product's feed adapters (jetStreamEventFeed, the
// SQLite feed's append/follow, encodeEvent) are bundled from source with esbuild, the same
// way tools/build.mjs does: synthetic events are then stored exactly as the transport stores them.
// Knobs: BENCH_RATE (creates/s, default 200), BENCH_SECONDS (default 10), BENCH_ROUNDS (of the
// distributed catch-up, default 3), BENCH_EVENTS
// (default 100000), BENCH_PARTS (`latency`, `catchup` or both, comma-separated: the default),
// NATS_URL. Prints PASS/MISS per target; exits non-zero on a miss or failure.
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { build } from 'esbuild';
import { SignJWT } from 'jose';
import { AckPolicy, DeliverPolicy, StorageType, connect, headers, nanos } from 'nats';
import { Pool } from 'undici';
import { freePort, median, stopChild, removeNatsLeftovers } from './load.mjs';
import { startFlags } from './start-flags.mjs';
import { BENCH_LORE_ENV } from './bench-env.mjs';

// Each create is also embedded by the local model (memory search): 200/s keeps 2 cores busy.
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 100_000);
const PARTS = new Set((process.env.BENCH_PARTS ?? 'latency,catchup').split(',').map((part) => part.trim()));
const NATS_URL = process.env.NATS_URL ?? 'nats://127.0.0.1:4222';
const PREFIX = `bench${process.pid}ev`;
const BASE_STREAM = `BENCH${process.pid}_BASELINE`;
const SECRET = 'bench-secret';
const LATENCY_MS = 20;
const CATCHUP_PER_S = 20_000;
/** Rounds of the distributed catch-up (each: bare consumer, EventFeed, SSE). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = mkdtempSync(join(tmpdir(), 'lore-bench-events-'));
const children = [];
const now = () => performance.now();
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// ---- the product's feed code, bundled from source (the externals resolve through a symlink) ----
async function loadProduct() {
  symlinkSync(resolve('node_modules'), join(ROOT, 'node_modules'));
  const options = JSON.parse(readFileSync('tools/bundle-options.json', 'utf8'));
  const outfile = join(ROOT, 'feeds.cjs');
  const contents = [
    "export { jetStreamEventFeed } from './libs/platform/transport/nats/jetstream-event-feed';",
    "export { encodeEvent } from './libs/platform/transport/nats/nats-wire.codec';",
    "export { openEmbeddedEventFeed } from './libs/platform/transport/sqlite-feed/sqlite-event-feed';",
    "export { integrationEventSubject } from './libs/platform/transport/port/integration-events';",
  ].join('\n');
  await build({ ...options, stdin: { contents, resolveDir: process.cwd(), loader: 'ts' }, outfile, logLevel: 'warning' });
  return createRequire(import.meta.url)(outfile);
}

// ---- servers (as write.bench.mjs starts them) ----
async function start(name, args, env) {
  const port = await freePort();
  const dataDir = join(ROOT, name);
  mkdirSync(dataDir, { recursive: true });
  const child = spawn(process.execPath, args, {
    env: { ...process.env, ...BENCH_LORE_ENV, ...env, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
    if ((await fetch(`${url}/ready`).catch(() => null))?.status === 200) return { url, child };
    await sleep(100);
  }
  throw new Error(`${name} did not become ready`);
}

const auth = async (workspace) => ({
  authorization: `Bearer ${await new SignJWT({ workspace_id: workspace }).setProtectedHeader({ alg: 'HS256' }).setSubject('bench-user').setExpirationTime('1h').sign(new TextEncoder().encode(SECRET))}`,
});

// ---- clients ----
/** A minimal text/event-stream reader; `onEvent(data, receivedAt)` per event with data (comments and `retry:` skipped). */
async function openSse(url, path, headers, onEvent) {
  const controller = new AbortController();
  const res = await fetch(url + path, { headers: { ...headers, accept: 'text/event-stream' }, signal: controller.signal });
  if (res.status !== 200) throw new Error(`GET ${path}: ${res.status} ${await res.text()}`);
  let opened;
  const open = new Promise((r) => (opened = r));
  // A failure other than our abort becomes an unhandled rejection: cleanup, exit 1.
  void (async () => {
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      const at = now(); // one timestamp per chunk: what a client could know
      opened();
      buffer += decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let end; (end = buffer.indexOf('\n\n', start)) >= 0; start = end + 2) {
        const block = buffer.slice(start, end);
        // One `data:` line per event (the gateway sends JSON on one line).
        const data = block.startsWith('data: ') ? 0 : block.indexOf('\ndata: ') + 1;
        if (data === 0 && !block.startsWith('data: ')) continue;
        const lineEnd = block.indexOf('\n', data);
        onEvent(block.slice(data + 6, lineEnd < 0 ? undefined : lineEnd), at);
      }
      buffer = buffer.slice(start);
    }
  })()
    .catch((error) => {
      if (!controller.signal.aborted) throw error;
    })
    .finally(opened);
  await open; // the `retry:` line (or the end)
  return { close: () => controller.abort() };
}

/** An ephemeral pull consumer (no acks, in memory, as jetStreamEventFeed makes them); returns a stop function. */
async function consumeStream(nc, stream, filter, deliver, onMessage) {
  const jsm = await nc.jetstreamManager();
  const { name } = await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, filter_subject: filter, deliver_policy: deliver, mem_storage: true, inactive_threshold: nanos(60_000) });
  const messages = await (await nc.jetstream().consumers.get(stream, name)).consume({ max_messages: 256 });
  const loop = (async () => { for await (const m of messages) onMessage(m, now()); })();
  return async () => {
    messages.stop();
    await loop.catch(() => undefined);
    await jsm.consumers.delete(stream, name).catch(() => undefined);
  };
}

/** `count` calls of `send(i)` paced at `rate`/s (open loop: a slow answer does not slow the next send). */
async function paced(count, rate, send) {
  const [pending, started] = [[], now()];
  for (let i = 0; i < count; i++) {
    const wait = started + (i * 1000) / rate - now();
    if (wait > 1) await sleep(wait);
    pending.push(send(i));
  }
  const sendRate = count / ((now() - started) / 1000);
  await Promise.all(pending);
  return sendRate;
}

const memoryBody = (i) => JSON.stringify({ memory: `User ${i % 97} prefers tea number ${i} in the afternoon`, topics: ['drinks'], metadata: { source: 'bench', i } });
const synthetic = (workspace, i) => ({ type: 'memory.created', event_id: randomUUID(), occurred_at: new Date().toISOString(), workspace_id: workspace, user_id: 'bench-user', memory_id: `bench-${i}`, version: 1 });

/** Creates at RATE for SECONDS; each receiver's `seen` (memory_id → time) is filled meanwhile. */
async function createAtRate(url, headers, receivers) {
  const count = Math.round(RATE * SECONDS);
  const pool = new Pool(url, { connections: 64 });
  const [sent, replied, ids] = [new Float64Array(count), new Float64Array(count), new Array(count)];
  let [failures, firstFailure] = [0, undefined];
  const sendRate = await paced(count, RATE, async (i) => {
    sent[i] = now();
    try {
      const res = await pool.request({ method: 'POST', path: '/api/v1/memories', headers: { ...headers, 'content-type': 'application/json' }, body: memoryBody(i) });
      const text = await res.body.text();
      replied[i] = now();
      if (res.statusCode === 201) ids[i] = JSON.parse(text).memory_id;
      else throw new Error(`${res.statusCode} ${text.slice(0, 200)}`);
    } catch (error) {
      failures++;
      firstFailure ??= String(error);
    }
  });
  await pool.close();
  // Stragglers: up to 15 s for every receiver to have every created memory.
  const created = ids.filter(Boolean);
  for (let t = 0; t < 150 && !receivers.every((r) => created.every((id) => r.seen.has(id))); t++) await sleep(100);
  const create = stats(Array.from({ length: count }, (_, i) => replied[i] - sent[i]).filter((_, i) => ids[i]));
  const by = (r) => ({
    name: r.name,
    missing: created.length - created.filter((id) => r.seen.has(id)).length,
    fromSend: stats(ids.flatMap((id, i) => (id && r.seen.has(id) ? [r.seen.get(id) - sent[i]] : []))),
    fromReply: stats(ids.flatMap((id, i) => (id && r.seen.has(id) ? [r.seen.get(id) - replied[i]] : []))),
  });
  return { count, sendRate, failures, firstFailure, create, receivers: receivers.map(by) };
}

function stats(values) {
  const sorted = Float64Array.from(values).sort();
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { n: sorted.length, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** Bare NATS at the same rate: core publish → subscribe, or JetStream publish → consume (a stream of our own). */
async function bareLatency(kind) {
  const [pub, sub] = await Promise.all([connect({ servers: NATS_URL }), connect({ servers: NATS_URL })]);
  const count = Math.round(RATE * SECONDS);
  const [sent, latencies] = [new Float64Array(count), []];
  const onMessage = (m, at) => latencies.push(at - sent[Number(m.headers?.get('i'))]);
  const subject = `bench${process.pid}base.memory.created.bench`;
  let stop;
  if (kind === 'core') {
    const s = sub.subscribe(subject, { callback: (_, m) => onMessage(m, now()) });
    stop = async () => s.unsubscribe();
    await sub.flush();
  } else {
    await (await pub.jetstreamManager()).streams.add({ name: BASE_STREAM, subjects: [`bench${process.pid}base.>`], storage: StorageType.File });
    stop = await consumeStream(sub, BASE_STREAM, subject, DeliverPolicy.New, onMessage);
  }
  const js = pub.jetstream();
  await paced(count, RATE, (i) => {
    const h = headers();
    h.set('i', String(i));
    const data = new TextEncoder().encode(JSON.stringify({ pattern: subject, data: synthetic('bench', i) }));
    sent[i] = now();
    if (kind === 'core') return pub.publish(subject, data, { headers: h });
    return js.publish(subject, data, { headers: h, msgID: randomUUID() });
  });
  for (let t = 0; t < 50 && latencies.length < count; t++) await sleep(100);
  await stop();
  if (kind !== 'core') await (await pub.jetstreamManager()).streams.delete(BASE_STREAM).catch(() => undefined);
  await Promise.all([pub.close(), sub.close()]);
  return { name: kind === 'core' ? 'bare NATS core pub→sub' : 'bare JetStream pub→consume', missing: count - latencies.length, fromSend: stats(latencies) };
}

/** Events/s until `read(onEvent)` (which returns a stop function) has delivered EVENTS events. */
async function timeCatchUp(read) {
  let [n, done] = [0, undefined];
  const all = new Promise((r) => (done = r));
  const started = now();
  const stop = await read(() => ++n === EVENTS && done(now()));
  const ended = await Promise.race([all, sleep(120_000).then(() => null)]);
  await stop();
  if (ended === null) throw new Error(`catch-up read only ${n} of ${EVENTS} events in 120 s`);
  return EVENTS / ((ended - started) / 1000);
}

/**
 * CPU time (ms) of a process and all its descendants, from Linux's /proc (clock ticks at the
 * usual 100/s); null elsewhere. The distributed gateway is a grandchild (dist/distributed.js
 * starts it), and during a catch-up it is the only one of them at work. A steadier measure
 * than events/s on a shared machine: the work per event does not depend on the neighbours.
 */
function treeCpuMs(pid) {
  try {
    const [utime, stime] = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ').slice(11, 13).map(Number);
    let total = ((utime + stime) * 1000) / 100;
    for (const task of readdirSync(`/proc/${pid}/task`)) {
      for (const child of readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean)) total += treeCpuMs(Number(child)) ?? 0;
    }
    return total;
  } catch {
    return null;
  }
}

/** `read`'s events/s, and the server's CPU µs per event meanwhile (null without /proc). */
async function timeCatchUpOn(pid, read) {
  const before = treeCpuMs(pid);
  const perSecond = await timeCatchUp(read);
  const after = treeCpuMs(pid);
  return { perSecond, cpuPerEvent: before === null || after === null ? null : ((after - before) * 1000) / EVENTS };
}

const sseReader = (url, headers) => async (onEvent) => {
  const sse = await openSse(url, '/api/v1/events?after=0', headers, onEvent);
  return async () => sse.close();
};

/**
 * A reader of an EventFeed (`follow`, as the gateway reads it), from the start; each event is
 * parsed, as the webhook dispatcher reads it. `follow` yields pages of entries (older builds:
 * one entry a step; both are read, so the bench compares builds).
 */
const feedReader = (feed, workspaceId) => async (onEvent) => {
  const controller = new AbortController();
  const loop = (async () => {
    for await (const step of feed.follow({ after: 0, selector: { workspaceId }, signal: controller.signal })) {
      for (const entry of Array.isArray(step) ? step : [step]) if (entry.event) onEvent();
    }
  })();
  return async () => void (controller.abort(), await loop);
};

// ---- output ----
const results = [];
const ms = (v) => v.toFixed(2).padStart(7);
function latencyRow(label, r, bases) {
  const ratio = bases.map((b) => `×${(r.fromSend.p50 / b.fromSend.p50).toFixed(1)} ${b.name.startsWith('bare NATS') ? 'core' : 'JS'}`).join(', ');
  const reply = r.fromReply ? `   from 201: p50 ${ms(r.fromReply.p50)}  p95 ${ms(r.fromReply.p95)}  p99 ${ms(r.fromReply.p99)}` : '';
  console.log(`${label.padEnd(34)} n=${r.fromSend.n}  from send: p50 ${ms(r.fromSend.p50)}  p95 ${ms(r.fromSend.p95)}  p99 ${ms(r.fromSend.p99)} ms${reply}${ratio ? `   p50 ${ratio}` : ''}${r.missing ? `   MISSING ${r.missing}` : ''}`);
}
const creates = (name, r) =>
  console.log(`${name}: sent ${r.count} creates at ${r.sendRate.toFixed(0)}/s, create p50 ${r.create.p50.toFixed(2)} ms p99 ${r.create.p99.toFixed(2)} ms${r.failures ? `, FAILURES ${r.failures} (${r.firstFailure})` : ''}`);
const target = (label, value, text, met) => results.push({ label, value, text, met });
// Judged from the send: the event often arrives before the 201 (negative "from 201" figures).
const lat = (r) => `p50 ${r.fromSend.p50.toFixed(2)} ms from send (${r.fromReply.p50.toFixed(2)} from 201)${r.missing ? `, ${r.missing} missing` : ''}`;

/** Once, whoever asks first (a signal, a failure, the end); later callers wait for the same run. */
let cleaning;
const cleanup = () => (cleaning ??= cleanUp());
async function cleanUp() {
  for (const child of children) await stopChild(child);
  await removeNatsLeftovers(NATS_URL, PREFIX).catch((error) => console.error(`could not delete the stream: ${error}`));
  const nc = await connect({ servers: NATS_URL }).catch(() => null);
  await (await nc?.jetstreamManager())?.streams.delete(BASE_STREAM).catch(() => undefined);
  await nc?.close();
  rmSync(join(ROOT, 'node_modules'), { force: true }); // the symlink, never what it points to
  rmSync(ROOT, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void cleanup().finally(() => process.exit(130)));
for (const event of ['unhandledRejection', 'uncaughtException']) {
  process.once(event, (error) => {
    console.error(error);
    void cleanup().finally(() => process.exit(1));
  });
}

try {
  console.log(`bench:events  ${RATE} creates/s for ${SECONDS} s; catch-up over ${EVENTS} events; parts: ${[...PARTS].join(', ')}; node ${process.version}, ${cpus().length} cores`);
  const product = await loadProduct();
  const rate = (label, value, base, cpu) =>
    console.log(`${label.padEnd(44)} ${value.toFixed(0).padStart(7)} events/s${base ? `   ×${(value / base).toFixed(2)} of the baseline` : ''}${cpu == null ? '' : `   ${base ? 'server' : 'own'} CPU ${cpu.toFixed(1)} µs/event`}   load ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);

  // ---- 1. latency ----
  const bases = PARTS.has('latency') ? [await bareLatency('core'), await bareLatency('jetstream')] : [];
  if (bases.length > 0) console.log('');
  for (const base of bases) latencyRow(base.name, base, []);
  const dist = await start('distributed', [...startFlags(), 'dist/distributed.js'], { NATS_URL, NATS_SUBJECT_PREFIX: PREFIX });
  const latencyAuth = await auth('bench-latency');
  const nc = await connect({ servers: NATS_URL });
  const stream = `${PREFIX.toUpperCase()}_EVENTS`;
  let distributed;
  if (PARTS.has('latency')) {
    const [sseSeen, jsSeen] = [new Map(), new Map()];
    const sse = await openSse(dist.url, '/api/v1/events?types=memory.created', latencyAuth, (data, at) => sseSeen.set(JSON.parse(data).memory_id, at));
    // Without ?after= the gateway starts at the feed's last position, read just after the
    // `retry:` line: the writes start once it surely has.
    await sleep(300);
    const stopJs = await consumeStream(nc, stream, `${PREFIX}.events.memory.created.>`, DeliverPolicy.New, (m, at) => jsSeen.set(JSON.parse(new TextDecoder().decode(m.data)).data.memory_id, at));
    distributed = await createAtRate(dist.url, latencyAuth, [{ name: 'sse', seen: sseSeen }, { name: 'jetstream', seen: jsSeen }]);
    sse.close();
    await stopJs();
    const [distSse, distJs] = distributed.receivers;
    creates('distributed', distributed);
    latencyRow('distributed SSE /api/v1/events', distSse, bases);
    latencyRow('distributed JetStream consumer', distJs, bases);
    target('distributed SSE latency', lat(distSse), `p50 ≤ ${LATENCY_MS} ms`, distSse.fromSend.p50 <= LATENCY_MS && distSse.missing === 0);
    target('distributed JetStream consumer latency', lat(distJs), `p50 ≤ ${LATENCY_MS} ms`, distJs.fromSend.p50 <= LATENCY_MS && distJs.missing === 0);
  }

  // ---- 2. catch-up, distributed: synthetic events published as the transport publishes them ----
  const workspace = 'bench-catchup';
  if (PARTS.has('catchup')) {
    const subject = `${PREFIX}.${product.integrationEventSubject({ type: 'memory.created', workspace_id: workspace })}`;
    const js = nc.jetstream();
    let published = now();
    for (let i = 0; i < EVENTS; i += 1000) {
      await Promise.all(Array.from({ length: Math.min(1000, EVENTS - i) }, (_, k) => {
        const event = synthetic(workspace, i + k);
        return js.publish(subject, product.encodeEvent(subject, event), { msgID: event.event_id });
      }));
    }
    published = (now() - published) / 1000;
    console.log(`\npublished ${EVENTS} events to JetStream in ${published.toFixed(1)} s (${(EVENTS / published).toFixed(0)}/s)`);
    // Rounds of the three readers in turn (BENCH_ROUNDS): the machine's speed drifts between
    // readings a minute apart, so each SSE figure is set beside the baseline read just before it,
    // and the median of those ratios is the result.
    const feed = product.jetStreamEventFeed({ url: NATS_URL, subjectPrefix: PREFIX });
    const sseAuth = await auth(workspace);
    const ratios = [];
    let [viaSse, viaFeed] = [Infinity, Infinity];
    for (let round = 1; round <= ROUNDS; round++) {
      // The bare consumer runs in this process, alone meanwhile: its CPU per event is this process's.
      const ownCpu = process.cpuUsage();
      const bare = await timeCatchUp((onEvent) => consumeStream(nc, stream, `${PREFIX}.events.*.*.${workspace}`, DeliverPolicy.All, onEvent));
      const { user, system } = process.cpuUsage(ownCpu);
      const feedRate = await timeCatchUp(feedReader(feed, workspace));
      const { perSecond: sseRate, cpuPerEvent: distCpu } = await timeCatchUpOn(dist.child.pid, sseReader(dist.url, sseAuth));
      if (ROUNDS > 1) console.log(`round ${round}`);
      rate('bare nats.js consumer (baseline)', bare, undefined, (user + system) / EVENTS);
      rate('EventFeed (jetStreamEventFeed.follow)', feedRate, bare);
      rate('distributed SSE /api/v1/events?after=0', sseRate, bare, distCpu);
      ratios.push(sseRate / bare);
      [viaSse, viaFeed] = [Math.min(viaSse, sseRate), Math.min(viaFeed, feedRate)];
    }
    await feed.close();
    if (ROUNDS > 1) console.log(`distributed SSE against the baseline read before it, median of ${ROUNDS} rounds: ×${median(ratios).toFixed(2)} (${ratios.map((r) => `×${r.toFixed(2)}`).join(', ')})`);
    target('distributed SSE catch-up', `${viaSse.toFixed(0)} events/s`, `≥ ${CATCHUP_PER_S}/s`, viaSse >= CATCHUP_PER_S);
    target('distributed EventFeed catch-up', `${viaFeed.toFixed(0)} events/s`, `≥ ${CATCHUP_PER_S}/s`, viaFeed >= CATCHUP_PER_S);
  }
  await nc.close();
  await stopChild(dist.child);
  await removeNatsLeftovers(NATS_URL, PREFIX);

  // ---- standalone: the SQLite feed filled through its own append before the app opens it ----
  mkdirSync(join(ROOT, 'standalone'));
  let appended;
  let inProcess;
  if (PARTS.has('catchup')) {
    const sqliteFeed = product.openEmbeddedEventFeed(join(ROOT, 'standalone'), 7 * 24);
    const started = now();
    for (let i = 0; i < EVENTS; i += 5000) await Promise.all(Array.from({ length: Math.min(5000, EVENTS - i) }, (_, k) => sqliteFeed.append(synthetic(workspace, i + k))));
    appended = (now() - started) / 1000;
    inProcess = await timeCatchUp(feedReader(sqliteFeed, workspace));
    await sqliteFeed.close();
  }
  const alone = await start('standalone', [...startFlags(), 'dist/standalone.js'], {});
  console.log('');
  if (PARTS.has('latency')) {
    const aloneSseSeen = new Map();
    const aloneSse = await openSse(alone.url, '/api/v1/events?types=memory.created', latencyAuth, (data, at) => aloneSseSeen.set(JSON.parse(data).memory_id, at));
    await sleep(300); // as distributed
    const standalone = await createAtRate(alone.url, latencyAuth, [{ name: 'sse', seen: aloneSseSeen }]);
    aloneSse.close();
    creates('standalone', standalone);
    latencyRow('standalone SSE /api/v1/events', standalone.receivers[0], bases);
    const r = standalone.receivers[0];
    target('standalone SSE latency', lat(r), `p50 ≤ ${LATENCY_MS} ms`, r.fromSend.p50 <= LATENCY_MS && r.missing === 0);
    const failed = distributed.failures + standalone.failures;
    if (failed) target('creates answered 201', `${failed} failed`, 'all', false);
  }
  if (PARTS.has('catchup')) {
    const { perSecond: aloneCatchUp, cpuPerEvent: aloneCpu } = await timeCatchUpOn(alone.child.pid, sseReader(alone.url, await auth(workspace)));
    console.log(`appended ${EVENTS} events to the SQLite feed (its own append) in ${appended.toFixed(1)} s`);
    rate('SQLite feed follow, in-process (baseline)', inProcess);
    rate('standalone SSE /api/v1/events?after=0', aloneCatchUp, inProcess, aloneCpu);
    target('standalone SSE catch-up', `${aloneCatchUp.toFixed(0)} events/s`, `≥ ${CATCHUP_PER_S}/s`, aloneCatchUp >= CATCHUP_PER_S);
  }
  await stopChild(alone.child);

  // ---- summary ----
  console.log('');
  for (const r of results) console.log(`${r.met ? 'PASS' : 'MISS'}  ${r.label.padEnd(40)} ${r.value.padEnd(48)} target ${r.text}`);
  if (results.some((r) => !r.met)) process.exitCode = 1;
} catch (error) {
  console.error(error);
  process.exitCode = 1;
} finally {
  await cleanup();
}
process.exit(process.exitCode ?? 0);
