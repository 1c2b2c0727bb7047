// npm run bench:rerank — what a rerank step adds to a knowledge search: the standalone app
// (dist/standalone.js, local embedding model) searches a collection of SciFact passages, each
// query once plainly and once with `rerank` through a stand-in Cohere v2 rerank server (POST
// /v2/rerank, https://docs.cohere.com/reference/rerank) that answers after a fixed delay. The
// pairs run back to back (in alternating order), so both halves see the same machine load.
// Prints p50/p95 of each, the median of the per-pair differences, that minus the stand-in's
// delay (Lore's own cost of the step: the target is ≤ 2 ms), and the load average.
// The reranked search asks for as many candidates as the plain one returns (10), so the
// difference is the rerank call alone, not a larger retrieval.
// Knobs: BENCH_RERANK_DELAY_MS (default 20), BENCH_PAIRS (default 300), BENCH_DOCS (SciFact
// passages indexed, default 200), MODELS_DIR, BENCH_DATA (the BEIR sets, default ../shared/data).
import { createServer } from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { DATA_DIR, startLore } from './lore-under-bench.mjs';
import { readJsonl } from './search-data.mjs';

const DELAY_MS = Number(process.env.BENCH_RERANK_DELAY_MS ?? 20);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 300);
const DOCS = Number(process.env.BENCH_DOCS ?? 200);
const LIMIT = 10;
const log = (line) => process.stderr.write(`${line}\n`);

// ---- the stand-in reranker: Cohere v2's wire format, a fixed delay, scores by word overlap ----
const words = (text) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
let reranks = 0;
/** The stand-in's own time for the last call, from the request's first byte to its answer: the nominal delay plus its timer's lateness under load. */
let lastServedMs = 0;
const standIn = createServer((req, res) => {
  const arrived = performance.now();
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const q = words(body.query);
    const results = body.documents
      .map((d, index) => {
        const w = words(d);
        let found = 0;
        for (const x of q) if (w.has(x)) found++;
        return { index, relevance_score: found / Math.max(1, q.size) };
      })
      .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
      .slice(0, body.top_n ?? body.documents.length);
    reranks++;
    setTimeout(() => {
      const text = JSON.stringify({ id: 'bench', results, meta: { api_version: { version: '2' } } });
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) }).end(text);
      lastServedMs = performance.now() - arrived;
    }, DELAY_MS);
  });
});
await new Promise((resolve) => standIn.listen(0, '127.0.0.1', resolve));
const standInUrl = `http://127.0.0.1:${standIn.address().port}`;

const lore = await startLore({ RERANK_COHERE_BASE_URL: standInUrl, RERANK_COHERE_API_KEY: 'bench', LORE_EGRESS_ALLOW: '127.0.0.1' });
try {
  const corpus = readJsonl(join(DATA_DIR, 'scifact-train', 'corpus.jsonl')).slice(0, DOCS);
  const queries = readJsonl(join(DATA_DIR, 'scifact-train', 'queries.jsonl'))
    .map((q) => q.text?.trim())
    .filter(Boolean)
    .slice(0, 100);
  const collection = await lore.call('POST', '/api/v1/collections', { name: 'rerank-bench' });
  log(`indexing ${corpus.length} SciFact passages with the local model…`);
  const contents = [];
  for (const doc of corpus) contents.push(await lore.call('POST', '/api/v1/contents', { collection_id: collection.id, name: String(doc._id), text: `${doc.title ?? ''} ${doc.text ?? ''}`.trim() }));
  for (const content of contents) {
    for (;;) {
      const c = await lore.call('GET', `/api/v1/contents/${content.id}`);
      if (c.status === 'completed') break;
      if (c.status === 'failed') throw new Error(`content ${content.id} failed: ${c.error}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  const plain = (query) => ({ query, collection_id: collection.id, max_results: LIMIT });
  const reranked = (query) => ({ ...plain(query), rerank: { provider: 'cohere', candidates: LIMIT, top_n: LIMIT } });
  let stepMs = 0;
  const timed = async (body) => {
    const started = performance.now();
    const reply = await lore.call('POST', '/api/v1/collections/search', body);
    const ms = performance.now() - started;
    if (body.rerank && reply.rerank?.applied !== true) throw new Error(`rerank not applied: ${JSON.stringify(reply.rerank)}`);
    if (body.rerank) stepMs = reply.rerank.elapsed_ms;
    return ms;
  };
  // Warm-up: every query's embedding cached, both paths run.
  for (const q of queries) {
    await timed(plain(q));
    await timed(reranked(q));
  }
  const without = [];
  const withRerank = [];
  const differences = [];
  /** Per pair: the difference minus what the stand-in itself took (its delay as its timer ran it). */
  const overServed = [];
  /** Per pair: Lore's own measure of the step (`rerank.elapsed_ms`) minus the stand-in's time. */
  const stepOverServed = [];
  const served = [];
  const loadBefore = loadavg();
  reranks = 0;
  for (let i = 0; i < PAIRS; i++) {
    const q = queries[i % queries.length];
    let a;
    let b;
    if (i % 2 === 0) {
      a = await timed(plain(q));
      b = await timed(reranked(q));
    } else {
      b = await timed(reranked(q));
      a = await timed(plain(q));
    }
    without.push(a);
    withRerank.push(b);
    differences.push(b - a);
    overServed.push(b - a - lastServedMs);
    stepOverServed.push(stepMs - lastServedMs);
    served.push(lastServedMs);
  }
  const loadAfter = loadavg();
  const pct = (values, p) => {
    const sorted = [...values].sort((x, y) => x - y);
    return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
  };
  const f = (x) => x.toFixed(2);
  const overhead = pct(differences, 0.5) - DELAY_MS;
  console.log(`rerank latency: ${PAIRS} pairs of searches over ${corpus.length} SciFact passages, top 10, stand-in delay ${DELAY_MS} ms (${reranks} rerank calls)`);
  console.log(`  search without rerank: p50 ${f(pct(without, 0.5))} ms  p95 ${f(pct(without, 0.95))} ms`);
  console.log(`  search with rerank:    p50 ${f(pct(withRerank, 0.5))} ms  p95 ${f(pct(withRerank, 0.95))} ms`);
  console.log(`  difference (per pair): p50 ${f(pct(differences, 0.5))} ms  p95 ${f(pct(differences, 0.95))} ms`);
  console.log(`  difference p50 minus the nominal delay: ${f(overhead)} ms (target ≤ 2 ms: ${overhead <= 2 ? 'met' : 'NOT met'}); p50 ratio with/without ${(pct(withRerank, 0.5) / pct(without, 0.5)).toFixed(2)}`);
  console.log(`  the stand-in's own time per call (delay as its timer ran it): p50 ${f(pct(served, 0.5))} ms  p95 ${f(pct(served, 0.95))} ms`);
  console.log(`  difference minus the stand-in's own time, per pair: p50 ${f(pct(overServed, 0.5))} ms  p95 ${f(pct(overServed, 0.95))} ms`);
  console.log(`  Lore's rerank step (rerank.elapsed_ms) minus the stand-in's time: p50 ${f(pct(stepOverServed, 0.5))} ms  p95 ${f(pct(stepOverServed, 0.95))} ms`);
  console.log(`  load average before ${loadBefore.map((l) => l.toFixed(2)).join(' ')}, after ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  await lore.stop();
  standIn.close();
}
