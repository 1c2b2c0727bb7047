// npm run bench:fairness — fair ingestion across workspaces (issue 16, item 3). The standalone
// app with the local model: first workspace B's time from upload to `completed` for one small
// content (37 bytes) on an idle server, then workspace A queues BENCH_FAIR_DOCS (500) realistic
// small documents (SciFact abstracts) through the HTTP API with its own JWT, and B uploads the
// same small content again, BENCH_FAIR_REPS (5) times one after the other while A's backlog
// waits. Prints B's median time under load, its ratio to idle (target ≤ 2×), A's throughput
// meanwhile and the load average. BENCH_FAIR_DURING=1: B's uploads start once A has sent a
// fifth of its contents, while A goes on uploading (the projections then have A's uploads to
// pass first). A's backlog is not drained (BENCH_FAIR_DRAIN=1 drains it),
// so the default run stays near a minute. Knobs: BENCH_SET, MODELS_DIR, KNOWLEDGE_WORKERS.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DATA_DIR, inParallel, mintToken, percentile, startLore } from './lore-under-bench.mjs';

const SET = process.env.BENCH_SET ?? 'scifact-train';
const A_DOCS = Number(process.env.BENCH_FAIR_DOCS ?? 500);
const REPS = Number(process.env.BENCH_FAIR_REPS ?? 5);
const DRAIN = process.env.BENCH_FAIR_DRAIN === '1';
const DURING = process.env.BENCH_FAIR_DURING === '1';
const SMALL = 'Quarterly note: the lab moves Friday.';
const corpus = readFileSync(join(DATA_DIR, SET, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, A_DOCS).map((l) => JSON.parse(l));

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const load = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const ms = (x) => `${x.toFixed(0)} ms`;

function client(url, token) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  return async (method, path, body) => {
    const res = await fetch(url + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 300)}`);
    return JSON.parse(text);
  };
}

/** Upload → `completed`, polled every 20 ms. */
async function timeToCompleted(call, collectionId, name) {
  const t0 = performance.now();
  const created = await call('POST', '/api/v1/contents', { collection_id: collectionId, name, text: SMALL });
  for (;;) {
    const content = await call('GET', `/api/v1/contents/${created.id}`);
    if (content.status === 'completed') {
      const took = performance.now() - t0;
      // Where it went: upload → the worker's completion (queue, claim, embed), then the projection and this poll.
      const inWorkers = Date.parse(content.processed_at) - Date.parse(content.created_at);
      if (process.env.BENCH_FAIR_VERBOSE === '1') process.stdout.write(`    ${name}: ${ms(took)}, of which ${ms(inWorkers)} from created to processed_at\n`);
      return took;
    }
    if (content.status === 'failed') throw new Error(`B's content failed: ${content.error}`);
    if (performance.now() - t0 > 120_000) throw new Error("B's content did not complete within 2 min");
    await sleep(20);
  }
}

async function countOf(call, collectionId, status) {
  return (await call('GET', `/api/v1/contents?collection_id=${collectionId}&status=${status}&limit=1`)).total_count;
}

const lore = await startLore();
try {
  const a = client(lore.url, await mintToken({ workspace: 'fair-a', sub: 'alice' }));
  const b = client(lore.url, await mintToken({ workspace: 'fair-b', sub: 'bob' }));
  const bCollection = await b('POST', '/api/v1/collections', { name: 'fairness B' });
  await timeToCompleted(b, bCollection.id, 'warm-up'); // loads the model

  process.stdout.write(`load average at start: ${load()}\n`);
  const idle = [];
  for (let i = 0; i < REPS; i++) idle.push(await timeToCompleted(b, bCollection.id, `idle-${i}`));
  const idleMedian = percentile(idle, 50);
  process.stdout.write(`B idle: ${idle.map(ms).join(', ')}; median ${ms(idleMedian)}\n`);

  const aCollection = await a('POST', '/api/v1/collections', { name: 'fairness A' });
  const aStarted = performance.now();
  let uploaded = 0;
  let uploadsStarted = () => undefined;
  const uploadsUnderWay = new Promise((resolve) => (uploadsStarted = resolve));
  const uploading = inParallel(corpus, 8, async (doc) => {
    await a('POST', '/api/v1/contents', { collection_id: aCollection.id, name: String(doc._id), text: doc.title ? `${doc.title}\n\n${doc.text}` : doc.text });
    if (++uploaded === Math.ceil(corpus.length / 5)) uploadsStarted();
  });
  const queued = uploading.then(async () => {
    const queuedIn = (performance.now() - aStarted) / 1000;
    process.stdout.write(`A queued ${corpus.length} contents in ${queuedIn.toFixed(1)} s; ${await countOf(a, aCollection.id, 'new')} still new\n`);
  });
  queued.catch(() => undefined); // awaited below; a failed upload must not end the run before Lore is stopped
  await (DURING ? Promise.race([uploadsUnderWay, queued]) : queued);

  const loaded = [];
  for (let i = 0; i < REPS; i++) {
    const waiting = await countOf(a, aCollection.id, 'new');
    if (waiting === 0) break; // A's backlog is gone: what follows would be idle again
    const took = await timeToCompleted(b, bCollection.id, `loaded-${i}`);
    loaded.push(took);
    process.stdout.write(`  B under load #${i + 1}: ${ms(took)} (A had ${waiting} new${DURING ? `, ${uploaded} uploaded` : ''})\n`);
  }
  await queued;
  if (loaded.length === 0) throw new Error("A's backlog was gone before B's first upload: raise BENCH_FAIR_DOCS");
  const loadedMedian = percentile(loaded, 50);
  const aSeconds = (performance.now() - aStarted) / 1000;
  const aDone = await countOf(a, aCollection.id, 'completed');
  const aStats = (await a('GET', `/api/v1/collections/${aCollection.id}`)).stats;
  const ratio = loadedMedian / idleMedian;
  process.stdout.write(`B under load: median ${ms(loadedMedian)}, max ${ms(Math.max(...loaded))} over ${loaded.length}\n`);
  process.stdout.write(`ratio loaded / idle: ${ratio.toFixed(2)}× (target ≤ 2×: ${ratio <= 2 ? 'met' : 'NOT met'})\n`);
  process.stdout.write(`A meanwhile: ${aDone} of ${corpus.length} completed in ${aSeconds.toFixed(1)} s = ${(aDone / aSeconds).toFixed(1)} contents/s, ${(aStats.chunk_count / aSeconds).toFixed(1)} chunks/s\n`);
  if (DRAIN) {
    while ((await countOf(a, aCollection.id, 'new')) + (await countOf(a, aCollection.id, 'processing')) > 0) await sleep(500);
    const total = (performance.now() - aStarted) / 1000;
    const stats = (await a('GET', `/api/v1/collections/${aCollection.id}`)).stats;
    process.stdout.write(`A drained: ${corpus.length} contents, ${stats.chunk_count} chunks in ${total.toFixed(1)} s = ${(stats.chunk_count / total).toFixed(1)} chunks/s\n`);
  }
  process.stdout.write(`load average at end: ${load()} (2 cores)\n`);
} finally {
  await lore.stop();
}
