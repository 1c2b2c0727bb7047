// npm run bench:ingest — end-to-end ingestion throughput (upload → completed, chunks/s) of the
// standalone app against the bare embedding model (transformers.js feature-extraction, the same
// q8 file, mean pooling + normalisation) on the very chunk texts Lore produced, in the same run;
// and the latency of other requests (GET a collection) while ingestion runs against their idle
// latency. Knobs: BENCH_SET (default scifact-train), BENCH_DOCS (default 600), MODELS_DIR.
import { readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { cpuOf } from './server-cpu.mjs';
import { DATA_DIR, MODELS_DIR, inParallel, percentile, startLore, untilProcessed } from './lore-under-bench.mjs';

const SET = process.env.BENCH_SET ?? 'scifact-train';
const DOCS = Number(process.env.BENCH_DOCS ?? 600);
const corpus = readFileSync(join(DATA_DIR, SET, 'corpus.jsonl'), 'utf8').split('\n').filter(Boolean).slice(0, DOCS).map((l) => JSON.parse(l));

async function probe(lore, path, until) {
  const latencies = [];
  while (!until()) {
    const t0 = performance.now();
    await lore.call('GET', path);
    latencies.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 20));
  }
  return latencies;
}

const lore = await startLore();
let chunkTexts;
let lorePerSecond;
/** Lore's CPU over the ingestion (every thread: main, embedding workers, libuv's pool), and its main thread's. */
let loreCpu;
/** Lore's CPU per GET of the probe, measured idle. */
let probeCpuMs;
let idle;
let busy;
try {
  const collection = await lore.call('POST', '/api/v1/collections', { name: 'ingest bench' });
  const path = `/api/v1/collections/${collection.id}`;
  // Warm the model (its first load is not ingestion), then the idle latency.
  const warm = await lore.call('POST', '/api/v1/contents', { collection_id: collection.id, name: 'warm-up', text: 'warm up the model' });
  await untilProcessed(lore, collection.id);
  await lore.call('DELETE', `/api/v1/contents/${warm.id}`);
  let stopIdle = false;
  setTimeout(() => (stopIdle = true), 5000);
  const idleCpuBefore = cpuOf(lore.pid);
  idle = await probe(lore, path, () => stopIdle);
  // The probe's own requests during ingestion are Lore's CPU too, not ingestion's: their cost idle.
  probeCpuMs = (cpuOf(lore.pid).totalMs - idleCpuBefore.totalMs) / idle.length;

  let done = false;
  const started = performance.now();
  const cpuBefore = cpuOf(lore.pid);
  const probing = probe(lore, path, () => done);
  await inParallel(corpus, 4, (doc) => lore.call('POST', '/api/v1/contents', { collection_id: collection.id, name: String(doc._id), text: doc.title ? `${doc.title}\n\n${doc.text}` : doc.text }));
  const uploadedAfter = (performance.now() - started) / 1000;
  await untilProcessed(lore, collection.id);
  const seconds = (performance.now() - started) / 1000;
  process.stdout.write(`Lore: every upload answered after ${uploadedAfter.toFixed(1)} s (4 at a time), every content completed after ${seconds.toFixed(1)} s\n`);
  const cpuAfter = cpuOf(lore.pid);
  loreCpu = { totalMs: cpuAfter.totalMs - cpuBefore.totalMs, mainMs: cpuAfter.mainMs - cpuBefore.mainMs };
  done = true;
  busy = await probing;
  chunkTexts = [];
  let cursor = null;
  do {
    const page = await lore.call('GET', `/api/v1/chunks?collection_id=${collection.id}&limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
    chunkTexts.push(...page.chunks.map((c) => c.content));
    cursor = page.next_cursor;
  } while (cursor);
  lorePerSecond = chunkTexts.length / seconds;
  process.stdout.write(`Lore: the probe's ${busy.length} GETs during ingestion ≈ ${((probeCpuMs * busy.length) / chunkTexts.length).toFixed(1)} ms of CPU per chunk (${probeCpuMs.toFixed(2)} ms each, idle); CPU per chunk without them ≈ ${((loreCpu.totalMs - probeCpuMs * busy.length) / chunkTexts.length).toFixed(1)} ms\n`);
  process.stdout.write(`Lore: ${corpus.length} contents → ${chunkTexts.length} chunks in ${seconds.toFixed(1)} s = ${lorePerSecond.toFixed(1)} chunks/s end to end; CPU per chunk ${(loreCpu.totalMs / chunkTexts.length).toFixed(1)} ms (main thread ${(loreCpu.mainMs / chunkTexts.length).toFixed(1)} ms)\n`);
} finally {
  await lore.stop();
}

// The bare model, alone in this process now, on the same texts: one text per call (as Lore's
// worker runs it: q8 vectors depend on batch-mates) and in batches of 32, with onnxruntime's
// default threads; and as Lore runs it, several single-threaded sessions side by side (one per
// core, at most 4), one text per call.
const T = await import('@huggingface/transformers');
T.env.localModelPath = MODELS_DIR.endsWith('/') ? MODELS_DIR : `${MODELS_DIR}/`;
T.env.allowRemoteModels = false;
const extractor = await T.pipeline('feature-extraction', 'Xenova/all-MiniLM-L6-v2', { dtype: 'q8' });
await extractor(['warm up'], { pooling: 'mean', normalize: true });
/** CPU per chunk (this process's, every thread) of the last bare run. */
const bareCpuMs = {};
async function bare(batch) {
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  for (let i = 0; i < chunkTexts.length; i += batch) await extractor(chunkTexts.slice(i, i + batch), { pooling: 'mean', normalize: true });
  bareCpuMs[batch] = cpuMsSince(cpu0) / chunkTexts.length;
  return chunkTexts.length / ((performance.now() - t0) / 1000);
}
function cpuMsSince(before) {
  const { user, system } = process.cpuUsage(before);
  return (user + system) / 1000;
}
const PARALLEL_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
(async () => {
  const T = await import('@huggingface/transformers');
  T.env.localModelPath = workerData.models; T.env.allowRemoteModels = false;
  const extractor = await T.pipeline('feature-extraction', 'Xenova/all-MiniLM-L6-v2', { dtype: 'q8', session_options: { intraOpNumThreads: 1, interOpNumThreads: 1 } });
  await extractor(['warm up'], { pooling: 'mean', normalize: true });
  parentPort.on('message', async (text) => { await extractor([text], { pooling: 'mean', normalize: true }); parentPort.postMessage(null); });
  parentPort.postMessage(null);
})();`;
async function bareSideBySide(sessions) {
  const workers = await Promise.all(Array.from({ length: sessions }, () => new Promise((resolve) => {
    const worker = new Worker(PARALLEL_SOURCE, { eval: true, workerData: { models: T.env.localModelPath } });
    worker.once('message', () => resolve(worker));
  })));
  const t0 = performance.now();
  const cpu0 = process.cpuUsage();
  let next = 0;
  // One lane per worker: a worker answers one text at a time.
  await Promise.all(workers.map(async (worker) => {
    while (next < chunkTexts.length) {
      const text = chunkTexts[next++];
      await new Promise((resolve) => {
        worker.once('message', resolve);
        worker.postMessage(text);
      });
    }
  }));
  const perSecond = chunkTexts.length / ((performance.now() - t0) / 1000);
  bareCpuMs.sideBySide = cpuMsSince(cpu0) / chunkTexts.length;
  await Promise.all(workers.map((w) => w.terminate()));
  return perSecond;
}
const single = await bare(1);
const batched = await bare(32);
const sessions = Math.min(availableParallelism(), 4);
const sideBySide = await bareSideBySide(sessions);
const best = Math.max(single, batched);
process.stdout.write(`bare model: ${single.toFixed(1)} chunks/s one at a time, ${batched.toFixed(1)} chunks/s in batches of 32, ${sideBySide.toFixed(1)} chunks/s in ${sessions} single-threaded sessions side by side\n`);
process.stdout.write(`CPU per chunk: Lore ${(loreCpu.totalMs / chunkTexts.length).toFixed(1)} ms (main thread ${(loreCpu.mainMs / chunkTexts.length).toFixed(1)}); bare ${bareCpuMs[1].toFixed(1)} ms one at a time, ${bareCpuMs[32].toFixed(1)} ms in batches of 32, ${bareCpuMs.sideBySide.toFixed(1)} ms side by side → bare side by side / Lore ${(bareCpuMs.sideBySide / (loreCpu.totalMs / chunkTexts.length)).toFixed(2)}×\n`);
process.stdout.write(`ratio Lore / best bare with onnxruntime's default threads: ${(lorePerSecond / best).toFixed(2)}× (target ≥ 0.9); / bare as Lore runs it (${sessions} single-threaded sessions): ${(lorePerSecond / sideBySide).toFixed(2)}×\n`);
const idleP50 = percentile(idle, 50);
const busyP50 = percentile(busy, 50);
process.stdout.write(`GET collection p50: idle ${idleP50.toFixed(2)} ms (${idle.length} requests), during ingestion ${busyP50.toFixed(2)} ms (${busy.length}) → ${(busyP50 / idleP50).toFixed(2)}× (target < 2×); p95 ${percentile(idle, 95).toFixed(2)} → ${percentile(busy, 95).toFixed(2)} ms\n`);
process.stdout.write(`${JSON.stringify({ ingest: { chunks: chunkTexts.length, lorePerSecond, bareSingle: single, bareBatched: batched, bareSideBySide: sideBySide, loreCpuMsPerChunk: loreCpu.totalMs / chunkTexts.length, loreMainCpuMsPerChunk: loreCpu.mainMs / chunkTexts.length, bareCpuMsPerChunk: bareCpuMs, idleP50, busyP50 } })}\n`);
