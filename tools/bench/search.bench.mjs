// npm run bench:search — vector, keyword and hybrid search latency of Lore's embedded vector
// store (SQLite + sqlite-vec, HNSW graphs and its own keyword index, through the VectorIndex port) beside LanceDB on the same
// vectors and texts, at 10k and 100k chunks in one collection. Prints p50/p95 per search type,
// recall@10 of each vector search against exact brute force, Lore's keyword search with a 1% and a
// 30% metadata filter, the Lore/LanceDB ratios and the
// query-embedding time (its own figure, never inside a search latency); writes the figures as
// JSON to <cache>/search-results.json and at the end of stdout.
//
// Data (tools/bench/search-data.mjs): real passages of the BEIR-format corpora in DATA_SETS_DIR
// (default ../shared/data beside the repository: SciFact train, CISI, Cranfield, MEDLINE; see
// their PROVENANCE.md) with their all-MiniLM-L6-v2 q8 vectors through Lore's
// LocalEmbeddingProvider (MODELS_DIR, default ../shared/models), cached under the cache dir;
// the 10k set is the first 10k of that list. Sizes beyond the ~100k real passages (the 1M
// point) add synthetic chunks: real sentences of two neighbouring real chunks recombined, the
// vector interpolated between theirs (method in search-data.mjs).
// Queries: every query of those sets (1,140), a fixed sample of BENCH_QUERIES (default 300).
//
// Peers live in tools/bench/peers (their own package.json and lock file), installed there with
// `npm ci --prefix tools/bench/peers` on first use: the project's node_modules is never touched.
//
// Knobs: BENCH_SIZES (default "10000,100000"; add 1000000 for the 1M point), BENCH_QUERIES (300),
// BENCH_REAL_MAX (real passages at most, default 100000; synthetic beyond), BENCH_CACHE_DIR (default tmp/bench/search — tmp/ is gitignored), BENCH_SKIP_LANCE=1,
// BENCH_LANCE_MAX (largest size LanceDB runs at, default 100000: building its indexes at 1M takes
// too long here), BENCH_LANCE_INDEX (IVF_HNSW_SQ | IVF_PQ, default IVF_HNSW_SQ),
// BENCH_BASELINE=<another checkout> (also measure that checkout's Lore, e.g. a build of main, in
// the same run) with BENCH_BASELINE_MAX (default 100000), BENCH_GRAPHS (JSON: the store's
// `graphs` options), BENCH_PREPARE_ONLY=1 (embed and cache, then stop), MODELS_DIR, DATA_SETS_DIR.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { corpusTexts, DIMENSIONS, embedAll, readJsonl, shuffle, synthesise } from './search-data.mjs';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number).filter((n) => n > 0);
const QUERY_COUNT = Number(process.env.BENCH_QUERIES ?? 300);
const CACHE = resolve(process.env.BENCH_CACHE_DIR ?? 'tmp/bench/search');
const DATA_SETS_DIR = resolve(process.env.DATA_SETS_DIR ?? join(import.meta.dirname, '../../../shared/data'));
const MODELS_DIR = resolve(process.env.MODELS_DIR ?? join(import.meta.dirname, '../../../shared/models'));
const SETS = ['scifact-train', 'cisi', 'cranfield', 'medline'];
const LANCE_INDEX = process.env.BENCH_LANCE_INDEX ?? 'IVF_HNSW_SQ';
const DTYPE = 'q8';
// Real passages (embedded and cached) up to this many; synthetic ones beyond.
const REAL_MAX = Number(process.env.BENCH_REAL_MAX ?? 100_000);
const LANCE_MAX = Number(process.env.BENCH_LANCE_MAX ?? 100_000);
const BASELINE = process.env.BENCH_BASELINE ? resolve(process.env.BENCH_BASELINE) : null;
const BASELINE_MAX = Number(process.env.BENCH_BASELINE_MAX ?? 100_000);
const GRAPHS = process.env.BENCH_GRAPHS ? JSON.parse(process.env.BENCH_GRAPHS) : undefined;
const LIMIT = 10;
const COLLECTION = 'bench-collection';
const KEYWORD_FILTERS = { '1%': { 'metadata.n': 7 }, '30%': { 'metadata.g': { $in: [0, 1, 2] } } };
const log = (line) => process.stderr.write(`${line}\n`);

mkdirSync(CACHE, { recursive: true });

// ---- Lore, bundled as the apps are ----
const require = createRequire(join(process.cwd(), 'package.json'));
async function bundleLore(root, name) {
  const options = JSON.parse(readFileSync(join(root, 'tools/bundle-options.json'), 'utf8'));
  const outfile = join(CACHE, name);
  await build({ entryPoints: [join(root, 'tools/bench/search.bench.lib.ts')], ...options, absWorkingDir: root, tsconfig: join(root, options.tsconfig), outfile, logLevel: 'warning' });
  return require(outfile);
}
const lore = await bundleLore(resolve(import.meta.dirname, '../..'), 'search-bench-lib.cjs');
const baseline = BASELINE ? await bundleLore(BASELINE, 'search-bench-baseline-lib.cjs') : null;
const hnswlib = require('hnswlib-node');

function queriesOf() {
  const all = [];
  for (const set of SETS) for (const q of readJsonl(join(DATA_SETS_DIR, set, 'queries.jsonl'))) if (q.text?.trim()) all.push(q.text.trim());
  return shuffle(all, 4).slice(0, QUERY_COUNT);
}

// ---- measuring ----
const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;

async function timeAll(queries, run) {
  for (let i = 0; i < Math.min(10, queries.length); i++) await run(queries[i]); // warm-up
  const ms = [];
  const results = [];
  for (const q of queries) {
    const start = process.hrtime.bigint();
    const r = await run(q);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
    results.push(r);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 0.5), p95: percentile(ms, 0.95), mean: ms.reduce((a, b) => a + b, 0) / ms.length, results };
}

function exactTopK(matrix, n, query, k) {
  const best = [];
  for (let i = 0; i < n; i++) {
    let dot = 0;
    const o = i * DIMENSIONS;
    for (let d = 0; d < DIMENSIONS; d++) dot += matrix[o + d] * query[d];
    if (best.length < k || dot > best[best.length - 1][1]) {
      best.push([i, dot]);
      best.sort((a, b) => b[1] - a[1]);
      if (best.length > k) best.pop();
    }
  }
  return best.map(([i]) => i);
}

function recall(results, exact) {
  let sum = 0;
  results.forEach((ids, q) => {
    const want = new Set(exact[q]);
    sum += ids.filter((i) => want.has(i)).length / exact[q].length;
  });
  return sum / results.length;
}

// ---- Lore ----
async function benchLore(lib, engine, texts, vectors, queries, options) {
  const dir = mkdtempSync(join(CACHE, 'lore-'));
  const rssBefore = process.memoryUsage().rss;
  const store = lib.openSqliteVectorStore({ path: join(dir, 'vectors.db'), ...options });
  try {
    await store.ensureIndex({ name: 'bench', dimensions: DIMENSIONS, distance: 'cosine' });
    const started = Date.now();
    for (let offset = 0; offset < texts.length; offset += 1000) {
      const points = [];
      for (let i = offset; i < Math.min(texts.length, offset + 1000); i++) {
        points.push({ id: `c${i}`, collectionId: COLLECTION, vector: vectors[i], text: texts[i], payload: { content_id: `doc-${Math.floor(i / 8)}`, chunk_index: i % 8, source: null, tags: [], metadata: { n: i % 100, g: i % 10 } } });
      }
      await store.write([{ op: 'upsert', index: 'bench', points }], { name: 'bench', value: String(offset) });
      if (offset % 100_000 === 0 && offset > 0) log(`  ${offset} written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    await store.purgeDeleted();
    const writeSeconds = (Date.now() - started) / 1000;
    // The graph is built in the background after the writes; searches wait for it (an older build has no `settled`).
    const built = Date.now();
    await store.settled?.();
    const buildSeconds = (Date.now() - built) / 1000;
    const index = store.index('bench');
    const scope = { collections: [COLLECTION] };
    const toIdx = (hits) => hits.map((h) => Number(h.id.slice(1)));
    const vector = await timeAll(queries, async (q) => toIdx(await index.searchVector({ ...scope, vector: q.vector, limit: LIMIT })));
    const keyword = await timeAll(queries, async (q) => toIdx(await index.searchKeyword({ ...scope, text: q.text, limit: LIMIT })));
    const hybrid = await timeAll(queries, async (q) => toIdx(await index.searchHybrid({ ...scope, vector: q.vector, text: q.text, limit: LIMIT })));
    // Keyword search with a residual (metadata) filter accepting 1% and 30% of the points.
    const keywordFiltered = {};
    for (const [name, filter] of Object.entries(KEYWORD_FILTERS)) keywordFiltered[name] = await timeAll(queries, async (q) => toIdx(await index.searchKeyword({ ...scope, text: q.text, limit: LIMIT, filter })));
    const rssMB = process.memoryUsage().rss / 1e6;
    return { engine, keywordFiltered, writeSeconds, buildSeconds, fileMB: statSync(join(dir, 'vectors.db')).size / 1e6, rssMB, rssGrowthMB: (process.memoryUsage().rss - rssBefore) / 1e6, vector, keyword, hybrid };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- LanceDB ----
async function benchLance(texts, vectors, queries, exact) {
  // LanceDB's Rust core logs a deprecation warning per query at the default level.
  process.env.LANCE_LOG ??= 'error';
  process.env.RUST_LOG ??= 'error';
  // Lance sizes its CPU pool from the core count; with 2 cores its FTS build deadlocks (every thread
  // parked, lancedb/lancedb#3568, lance-format/lance#7350): at least 2 free pool threads avoid it.
  process.env.LANCE_CPU_THREADS ??= '4';
  const lancedb = await importLanceDb();
  const dir = mkdtempSync(join(CACHE, 'lance-'));
  try {
    const db = await lancedb.connect(dir);
    const started = Date.now();
    const rows = texts.map((text, i) => ({ idx: i, collection_id: COLLECTION, text, vector: Array.from(vectors[i]) }));
    const table = await db.createTable('bench', rows.slice(0, 1000));
    for (let o = 1000; o < rows.length; o += 5000) await table.add(rows.slice(o, o + 5000));
    const partitions = Math.max(1, Math.round(Math.sqrt(texts.length)));
    const vectorIndex =
      LANCE_INDEX === 'IVF_PQ'
        ? lancedb.Index.ivfPq({ distanceType: 'cosine', numPartitions: partitions, numSubVectors: DIMENSIONS / 8 })
        : lancedb.Index.hnswSq({ distanceType: 'cosine', numPartitions: Math.max(1, Math.round(texts.length / 50_000)) });
    await table.createIndex('vector', { config: vectorIndex });
    await table.createIndex('text', { config: lancedb.Index.fts({ withPosition: false, stem: true, language: 'English', lowercase: true, removeStopWords: false, asciiFolding: true }) });
    await table.createIndex('collection_id', { config: lancedb.Index.bitmap() });
    await table.optimize();
    const writeSeconds = (Date.now() - started) / 1000;
    const where = `collection_id = '${COLLECTION}'`;
    const rrf = await lancedb.rerankers.RRFReranker.create();
    const toIdx = (batch) => batch.map((r) => Number(r.idx));
    const vectorQuery = (q, nprobes, refine) => {
      let query = table.query().nearestTo(q.vector).where(where).select(['idx', 'text']).limit(LIMIT).refineFactor(refine);
      if (LANCE_INDEX === 'IVF_PQ') query = query.nprobes(nprobes);
      else query = query.ef(nprobes);
      return query.toArray();
    };
    // Tune the search knob (nprobes for IVF_PQ, ef for HNSW) to the cheapest setting with recall@10 >= 0.95 on these queries.
    const knobs = LANCE_INDEX === 'IVF_PQ' ? [10, 20, 40, 80, 160] : [50, 100, 200, 400]; // HNSW: ef >= k × refine
    let knob = knobs[knobs.length - 1];
    for (const k of knobs) {
      const got = [];
      for (const q of queries.slice(0, 100)) got.push(toIdx(await vectorQuery(q, k, 5)));
      if (recall(got, exact.slice(0, 100)) >= 0.95) {
        knob = k;
        break;
      }
    }
    const vector = await timeAll(queries, async (q) => toIdx(await vectorQuery(q, knob, 5)));
    const keyword = await timeAll(queries, async (q) => toIdx(await table.query().fullTextSearch(q.text).where(where).select(['idx', 'text']).limit(LIMIT).toArray()));
    const hybrid = await timeAll(queries, async (q) => {
      let query = table.query().nearestTo(q.vector).fullTextSearch(q.text).where(where).select(['idx', 'text']).limit(LIMIT).refineFactor(5).rerank(rrf);
      query = LANCE_INDEX === 'IVF_PQ' ? query.nprobes(knob) : query.ef(knob);
      return toIdx(await query.toArray());
    });
    table.close();
    db.close();
    return { engine: `lancedb ${LANCE_INDEX} (${LANCE_INDEX === 'IVF_PQ' ? 'nprobes' : 'ef'} ${knob}, refine 5) + FTS + RRF`, writeSeconds, vector, keyword, hybrid };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function header() {
  return [
    `Search latency, one collection, limit ${LIMIT}, ${results.queryEmbedding.queries} real queries (BEIR sets), ${results.model}; ms per query, query embedding excluded`,
    `query embedding (local ${DTYPE}, one at a time): p50 ${fmt(results.queryEmbedding.p50)} ms  p95 ${fmt(results.queryEmbedding.p95)} ms`,
    '',
    `${'size'.padStart(7)}  ${'engine'.padEnd(52)} ${'vector p50/p95'.padStart(16)} ${'recall@10'.padStart(9)} ${'keyword p50/p95'.padStart(16)} ${'hybrid p50/p95'.padStart(16)} ${'write s'.padStart(8)} ${'build s'.padStart(8)}`,
  ];
}

/** One size's rows: each engine, Lore / LanceDB ratios, load and memory. */
function sizeLines(s) {
  const out = [];
  for (const e of s.engines) {
    out.push(
      `${String(s.size).padStart(7)}  ${e.engine.slice(0, 52).padEnd(52)} ${`${fmt(e.vector.p50)}/${fmt(e.vector.p95)}`.padStart(16)} ${fmt(e.vectorRecallAt10, 3).padStart(9)} ${`${fmt(e.keyword.p50)}/${fmt(e.keyword.p95)}`.padStart(16)} ${`${fmt(e.hybrid.p50)}/${fmt(e.hybrid.p95)}`.padStart(16)} ${fmt(e.writeSeconds, 1).padStart(8)} ${fmt(e.buildSeconds ?? NaN, 1).padStart(8)}`,
    );
  }
  for (const e of s.engines.filter((x) => x.keywordFiltered)) {
    const parts = Object.entries(e.keywordFiltered).map(([f, t]) => `${f} ${fmt(t.p50)}/${fmt(t.p95)}`);
    out.push(`${''.padStart(7)}  ${e.engine.slice(0, 40)}: keyword with a metadata filter accepting ${parts.join(', ')} (p50/p95)`);
  }
  const l = s.engines.find((e) => e.engine === 'lore-sqlite');
  const d = s.engines.find((e) => e.engine.startsWith('lancedb'));
  if (l && d) {
    const r = (t) => `${fmt(l[t].p50 / d[t].p50)}×`;
    s.ratios = Object.fromEntries(['vector', 'keyword', 'hybrid'].map((t) => [t, l[t].p50 / d[t].p50]));
    out.push(`${String(s.size).padStart(7)}  ${'Lore / LanceDB (p50)'.padEnd(52)} ${r('vector').padStart(16)} ${''.padStart(9)} ${r('keyword').padStart(16)} ${r('hybrid').padStart(16)}`);
  }
  const memory = s.engines.filter((e) => e.rssMB).map((e) => `${e.engine}: file ${fmt(e.fileMB, 0)} MB, RSS ${fmt(e.rssMB, 0)} MB (+${fmt(e.rssGrowthMB, 0)} MB)`);
  out.push(`${''.padStart(7)}  load average ${s.loadavg}; ${memory.join('; ')}`);
  return out;
}

// ---- main ----
const fmt = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const provider = new lore.LocalEmbeddingProvider({ modelsDir: MODELS_DIR, dtype: DTYPE, download: false });
const results = { date: new Date().toISOString(), node: process.version, model: `${lore.DEFAULT_LOCAL_MODEL} ${DTYPE}`, sizes: [] };
const lines = [];
try {
  const maxSize = Math.max(...SIZES);
  const realTexts = corpusTexts(DATA_SETS_DIR, SETS, Math.min(maxSize, REAL_MAX));
  const realVectors = await embedAll(CACHE, provider, realTexts, lore.DEFAULT_LOCAL_MODEL, DTYPE);
  const allTexts = [...realTexts];
  const allVectors = [...realVectors];
  if (realTexts.length < maxSize) {
    log(`${realTexts.length} real passages; synthesising ${maxSize - realTexts.length} more (search-data.mjs) …`);
    const synthetic = synthesise(CACHE, hnswlib, realTexts, realVectors, maxSize - realTexts.length);
    for (let i = 0; i < synthetic.texts.length; i++) {
      allTexts.push(synthetic.texts[i]);
      allVectors.push(synthetic.vectors[i]);
    }
  }
  results.realPassages = realTexts.length;
  if (process.env.BENCH_PREPARE_ONLY === '1') {
    await provider.close();
    log('vectors cached; BENCH_PREPARE_ONLY=1: stopping here');
    process.exit(0);
  }
  // Query embedding: its own figure, one query at a time as the service embeds them.
  const queryTexts = queriesOf();
  await provider.embedQuery('warm up');
  const embedMs = [];
  const queries = [];
  for (const text of queryTexts) {
    const start = process.hrtime.bigint();
    const vector = await provider.embedQuery(text);
    embedMs.push(Number(process.hrtime.bigint() - start) / 1e6);
    queries.push({ text, vector });
  }
  embedMs.sort((a, b) => a - b);
  results.queryEmbedding = { queries: queries.length, p50: percentile(embedMs, 0.5), p95: percentile(embedMs, 0.95) };
  await provider.close();

  for (const size of SIZES) {
    const texts = allTexts.slice(0, size);
    const vectors = allVectors.slice(0, size);
    const matrix = new Float32Array(size * DIMENSIONS);
    vectors.forEach((v, i) => matrix.set(v, i * DIMENSIONS));
    log(`${size}: exact top-${LIMIT} for ${queries.length} queries …`);
    const exact = queries.map((q) => exactTopK(matrix, size, q.vector, LIMIT));
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    log(`${size}: Lore …`);
    const engines = [await benchLore(lore, 'lore-sqlite', texts, vectors, queries, GRAPHS === undefined ? {} : { graphs: GRAPHS })];
    if (baseline && size <= BASELINE_MAX) {
      log(`${size}: Lore baseline (${BASELINE}) …`);
      engines.push(await benchLore(baseline, 'lore-sqlite baseline', texts, vectors, queries, {}));
    }
    if (process.env.BENCH_SKIP_LANCE !== '1' && size <= LANCE_MAX) {
      log(`${size}: LanceDB …`);
      engines.push(await benchLance(texts, vectors, queries, exact));
    }
    const entry = { size, queries: queries.length, loadavg: `${load} → ${loadavg().map((l) => l.toFixed(2)).join(' ')}`, engines: [] };
    for (const e of engines) {
      entry.engines.push({
        engine: e.engine,
        writeSeconds: e.writeSeconds,
        ...(e.buildSeconds !== undefined ? { buildSeconds: e.buildSeconds } : {}),
        ...(e.fileMB ? { fileMB: e.fileMB, rssMB: e.rssMB, rssGrowthMB: e.rssGrowthMB } : {}),
        ...Object.fromEntries(['vector', 'keyword', 'hybrid'].map((t) => [t, { p50: e[t].p50, p95: e[t].p95, mean: e[t].mean }])),
        ...(e.keywordFiltered ? { keywordFiltered: Object.fromEntries(Object.entries(e.keywordFiltered).map(([f, t]) => [f, { p50: t.p50, p95: t.p95, mean: t.mean }])) } : {}),
        vectorRecallAt10: recall(e.vector.results, exact),
      });
    }
    results.sizes.push(entry);
    // Printed (and saved) as each size finishes: a long run stopped at the next size keeps these.
    if (results.sizes.length === 1) process.stdout.write(`${header().join('\n')}\n`);
    process.stdout.write(`${sizeLines(entry).join('\n')}\n`);
    writeFileSync(join(CACHE, 'search-results.json'), JSON.stringify(results, null, 2));
  }
} finally {
  await provider.close();
}

// How each p50 grows with the size, per engine.
const engineNames = [...new Set(results.sizes.flatMap((s) => s.engines.map((e) => e.engine)))];
lines.push('', 'p50 growth with size (ms, and × the previous size):');
for (const name of engineNames) {
  for (const t of ['vector', 'keyword', 'hybrid']) {
    const points = results.sizes.flatMap((s) => s.engines.filter((e) => e.engine === name).map((e) => [s.size, e[t].p50]));
    if (points.length < 2) continue;
    const steps = points.map(([size, p50], i) => `${size}: ${fmt(p50)}${i === 0 ? '' : ` (×${fmt(p50 / points[i - 1][1])})`}`);
    lines.push(`  ${name.slice(0, 40).padEnd(40)} ${t.padEnd(8)} ${steps.join('  →  ')}`);
  }
}
lines.push('', 'load: the machine is shared; repeat runs and compare before trusting a difference under ~20%.');
const json = JSON.stringify(results, null, 2);
writeFileSync(join(CACHE, 'search-results.json'), json);
process.stdout.write(`${lines.join('\n')}\n\n${json}\n`);

/**
 * LanceDB is this benchmark's peer only, so it is not a dependency of Lore: it lives in
 * tools/bench/peers with its own package.json and lock file (0.31.0: newer releases list
 * platform packages the registry does not serve, which makes `npm ci` refuse the lock), and is
 * installed there with `npm ci` on first use; the project's node_modules is never touched.
 */
async function importLanceDb() {
  const peers = resolve(import.meta.dirname, 'peers');
  const entry = () => createRequire(join(peers, 'package.json')).resolve('@lancedb/lancedb');
  let path;
  try {
    path = entry();
  } catch {
    process.stdout.write(`installing the benchmark's peers in ${peers} (npm ci --prefix tools/bench/peers)…\n`);
    execFileSync('npm', ['ci', '--prefix', peers, '--no-audit', '--no-fund'], { stdio: 'inherit' });
    path = entry();
  }
  return import(pathToFileURL(path).href);
}
