// npm run bench:search — vector, keyword and hybrid search latency of Lore's embedded vector
// store (SQLite + sqlite-vec + FTS5, through the VectorIndex port) beside LanceDB on the same
// vectors and texts, at 10k and 100k chunks in one collection. Prints p50/p95 per search type,
// recall@10 of each vector search against exact brute force, the Lore/LanceDB ratios and the
// query-embedding time (its own figure, never inside a search latency); writes the figures as
// JSON to <cache>/search-results.json and at the end of stdout.
//
// Data: real texts, real vectors. The chunks are passages of the BEIR-format corpora in
// DATA_SETS_DIR (default ../shared/data beside the repository: SciFact train, CISI, Cranfield, MEDLINE; see their
// PROVENANCE.md): first each document cut at sentence ends into chunks of at most ~100 words
// (what an ingestion splitter makes), then, to reach 100k, windows of two consecutive sentences
// (stride one), then single sentences; deduplicated, in a fixed pseudo-random order. The 10k set
// is the first 10k of that list (document chunks only). Vectors: all-MiniLM-L6-v2 q8 through
// Lore's LocalEmbeddingProvider (MODELS_DIR, default ../shared/models), cached in
// <cache>/embeddings-<model>-<dtype>.bin keyed by the text's SHA-256, so only the first run
// embeds (about 100k short texts: tens of minutes on 2 shared cores; resumable, it appends as it goes).
// Queries: every query of those sets (1,140), a fixed sample of BENCH_QUERIES (default 300).
//
// Knobs: BENCH_SIZES (default "10000,100000"), BENCH_QUERIES (300), BENCH_CACHE_DIR
// (default tmp/bench/search — tmp/ is gitignored), BENCH_SKIP_LANCE=1, BENCH_LANCE_INDEX
// (IVF_HNSW_SQ | IVF_PQ, default IVF_HNSW_SQ), BENCH_PREPARE_ONLY=1 (embed and cache, then stop),
// MODELS_DIR, DATA_SETS_DIR.
import { build } from 'esbuild';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';

const SIZES = (process.env.BENCH_SIZES ?? '10000,100000').split(',').map(Number).filter((n) => n > 0);
const QUERY_COUNT = Number(process.env.BENCH_QUERIES ?? 300);
const CACHE = resolve(process.env.BENCH_CACHE_DIR ?? 'tmp/bench/search');
const DATA_SETS_DIR = resolve(process.env.DATA_SETS_DIR ?? join(import.meta.dirname, '../../../shared/data'));
const MODELS_DIR = resolve(process.env.MODELS_DIR ?? join(import.meta.dirname, '../../../shared/models'));
const SETS = ['scifact-train', 'cisi', 'cranfield', 'medline'];
const LANCE_INDEX = process.env.BENCH_LANCE_INDEX ?? 'IVF_HNSW_SQ';
const DTYPE = 'q8';
const DIMENSIONS = 384;
const LIMIT = 10;
const COLLECTION = 'bench-collection';
const log = (line) => process.stderr.write(`${line}\n`);

mkdirSync(CACHE, { recursive: true });

// ---- Lore, bundled as the apps are ----
const options = JSON.parse(readFileSync(new URL('../bundle-options.json', import.meta.url), 'utf8'));
const bundle = join(CACHE, 'search-bench-lib.cjs');
await build({ entryPoints: [new URL('./search.bench.lib.ts', import.meta.url).pathname], ...options, outfile: bundle, logLevel: 'warning' });
const require = createRequire(join(process.cwd(), 'package.json'));
const lore = require(bundle);

// ---- texts ----
function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function shuffle(items, seed) {
  const random = seeded(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

const readJsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
const sentencesOf = (text) => text.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+/).filter((s) => s.length > 0);
const words = (text) => text.split(' ').length;

function corpusTexts(max) {
  const chunks = [];
  const windows = [];
  const singles = [];
  for (const set of SETS) {
    for (const doc of readJsonl(join(DATA_SETS_DIR, set, 'corpus.jsonl'))) {
      const sentences = sentencesOf(`${doc.title ? `${doc.title}. ` : ''}${doc.text ?? ''}`);
      let current = [];
      for (const s of sentences) {
        if (current.length > 0 && words(current.join(' ')) + words(s) > 100) {
          chunks.push(current.join(' '));
          current = [];
        }
        current.push(s);
      }
      if (current.length > 0) chunks.push(current.join(' '));
      for (let i = 0; i + 1 < sentences.length; i++) windows.push(`${sentences[i]} ${sentences[i + 1]}`);
      for (const s of sentences) if (words(s) >= 4) singles.push(s);
    }
  }
  const seen = new Set();
  const out = [];
  for (const list of [shuffle(chunks, 1), shuffle(windows, 2), shuffle(singles, 3)]) {
    for (const text of list) {
      if (out.length >= max) return out;
      if (text.length < 20 || seen.has(text)) continue;
      seen.add(text);
      out.push(text);
    }
  }
  return out;
}

// ---- embeddings, cached by text hash ----
const RECORD = 32 + DIMENSIONS * 4;
const sha = (text) => createHash('sha256').update(text).digest();

function loadCache(path) {
  const map = new Map();
  if (!existsSync(path)) return { map, whole: 0, length: 0 };
  const buf = readFileSync(path);
  const whole = buf.length - (buf.length % RECORD); // a run killed mid-append leaves a partial record
  for (let o = 0; o < whole; o += RECORD) {
    const v = new Float32Array(DIMENSIONS);
    new Uint8Array(v.buffer).set(buf.subarray(o + 32, o + RECORD));
    map.set(buf.toString('hex', o, o + 32), v);
  }
  return { map, whole, length: buf.length };
}

async function embedAll(provider, texts, model) {
  const path = join(CACHE, `embeddings-${model.replace(/[^a-zA-Z0-9]+/g, '_')}-${DTYPE}.bin`);
  const { map: cache, whole, length } = loadCache(path);
  const keys = texts.map((t) => sha(t));
  const missing = [...new Set(texts.filter((_, i) => !cache.has(keys[i].toString('hex'))))];
  if (missing.length > 0) {
    log(`embedding ${missing.length} texts not in ${path} (cached: ${cache.size}) …`);
    // Only the run that appends trims a record cut short by a killed run (one writer at a time).
    if (whole !== length) writeFileSync(path, readFileSync(path).subarray(0, whole));
    const started = Date.now();
    const BATCH = 256;
    for (let i = 0; i < missing.length; i += BATCH) {
      const part = missing.slice(i, i + BATCH);
      const vectors = await provider.embedDocuments(part);
      const out = Buffer.alloc(RECORD * part.length);
      part.forEach((text, j) => {
        const key = sha(text);
        key.copy(out, j * RECORD);
        Buffer.from(vectors[j].buffer, vectors[j].byteOffset, vectors[j].byteLength).copy(out, j * RECORD + 32);
        cache.set(key.toString('hex'), vectors[j]);
      });
      appendFileSync(path, out);
      const done = i + part.length;
      if (done % 2560 < BATCH || done === missing.length) {
        const s = (Date.now() - started) / 1000;
        log(`  ${done}/${missing.length} in ${s.toFixed(0)} s (${(done / s).toFixed(0)} texts/s)`);
      }
    }
  }
  return keys.map((k) => cache.get(k.toString('hex')));
}

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
async function benchLore(texts, vectors, queries) {
  const dir = mkdtempSync(join(CACHE, 'lore-'));
  const store = lore.openSqliteVectorStore({ path: join(dir, 'vectors.db') });
  try {
    await store.ensureIndex({ name: 'bench', dimensions: DIMENSIONS, distance: 'cosine' });
    const started = Date.now();
    for (let offset = 0; offset < texts.length; offset += 1000) {
      const points = [];
      for (let i = offset; i < Math.min(texts.length, offset + 1000); i++) {
        points.push({ id: `c${i}`, collectionId: COLLECTION, vector: vectors[i], text: texts[i], payload: { content_id: `doc-${Math.floor(i / 8)}`, chunk_index: i % 8, source: null, tags: [], metadata: {} } });
      }
      await store.write([{ op: 'upsert', index: 'bench', points }], { name: 'bench', value: String(offset) });
    }
    await store.purgeDeleted();
    const writeSeconds = (Date.now() - started) / 1000;
    const index = store.index('bench');
    const scope = { collections: [COLLECTION] };
    const toIdx = (hits) => hits.map((h) => Number(h.id.slice(1)));
    const vector = await timeAll(queries, async (q) => toIdx(await index.searchVector({ ...scope, vector: q.vector, limit: LIMIT })));
    const keyword = await timeAll(queries, async (q) => toIdx(await index.searchKeyword({ ...scope, text: q.text, limit: LIMIT })));
    const hybrid = await timeAll(queries, async (q) => toIdx(await index.searchHybrid({ ...scope, vector: q.vector, text: q.text, limit: LIMIT })));
    return { engine: 'lore-sqlite', writeSeconds, fileMB: statSync(join(dir, 'vectors.db')).size / 1e6, vector, keyword, hybrid };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

// ---- LanceDB ----
async function benchLance(texts, vectors, queries, exact) {
  // LanceDB's Rust core logs a deprecation warning per query at the default level.
  process.env.LANCE_LOG ??= 'error';
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

// ---- main ----
const fmt = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : '—');
const provider = new lore.LocalEmbeddingProvider({ modelsDir: MODELS_DIR, dtype: DTYPE, download: false });
const results = { date: new Date().toISOString(), node: process.version, model: `${lore.DEFAULT_LOCAL_MODEL} ${DTYPE}`, sizes: [] };
const lines = [];
try {
  const maxSize = Math.max(...SIZES);
  const allTexts = corpusTexts(maxSize);
  if (allTexts.length < maxSize) log(`only ${allTexts.length} distinct texts available`);
  const allVectors = await embedAll(provider, allTexts, lore.DEFAULT_LOCAL_MODEL);
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
    log(`${size}: Lore …`);
    const engines = [await benchLore(texts, vectors, queries)];
    if (process.env.BENCH_SKIP_LANCE !== '1') {
      log(`${size}: LanceDB …`);
      engines.push(await benchLance(texts, vectors, queries, exact));
    }
    const entry = { size, queries: queries.length, engines: [] };
    for (const e of engines) {
      entry.engines.push({
        engine: e.engine,
        writeSeconds: e.writeSeconds,
        ...(e.fileMB ? { fileMB: e.fileMB } : {}),
        ...Object.fromEntries(['vector', 'keyword', 'hybrid'].map((t) => [t, { p50: e[t].p50, p95: e[t].p95, mean: e[t].mean }])),
        vectorRecallAt10: recall(e.vector.results, exact),
      });
    }
    results.sizes.push(entry);
  }
} finally {
  await provider.close();
}

lines.push(`Search latency, one collection, limit ${LIMIT}, ${results.queryEmbedding.queries} real queries (BEIR sets), ${results.model}; ms per query, query embedding excluded`);
lines.push(`query embedding (local ${DTYPE}, one at a time): p50 ${fmt(results.queryEmbedding.p50)} ms  p95 ${fmt(results.queryEmbedding.p95)} ms`);
lines.push('');
lines.push(`${'size'.padStart(7)}  ${'engine'.padEnd(64)} ${'vector p50/p95'.padStart(16)} ${'recall@10'.padStart(9)} ${'keyword p50/p95'.padStart(16)} ${'hybrid p50/p95'.padStart(16)}`);
for (const s of results.sizes) {
  for (const e of s.engines) {
    lines.push(`${String(s.size).padStart(7)}  ${e.engine.slice(0, 64).padEnd(64)} ${`${fmt(e.vector.p50)}/${fmt(e.vector.p95)}`.padStart(16)} ${fmt(e.vectorRecallAt10, 3).padStart(9)} ${`${fmt(e.keyword.p50)}/${fmt(e.keyword.p95)}`.padStart(16)} ${`${fmt(e.hybrid.p50)}/${fmt(e.hybrid.p95)}`.padStart(16)}`);
  }
  const [l, d] = s.engines;
  if (l && d) {
    const r = (t) => `${fmt(l[t].p50 / d[t].p50)}×`;
    s.ratios = Object.fromEntries(['vector', 'keyword', 'hybrid'].map((t) => [t, l[t].p50 / d[t].p50]));
    lines.push(`${String(s.size).padStart(7)}  ${'Lore / LanceDB (p50)'.padEnd(64)} ${r('vector').padStart(16)} ${''.padStart(9)} ${r('keyword').padStart(16)} ${r('hybrid').padStart(16)}`);
  }
}
lines.push('', 'load: the machine is shared; repeat runs and compare before trusting a difference under ~20%.');
const json = JSON.stringify(results, null, 2);
writeFileSync(join(CACHE, 'search-results.json'), json);
process.stdout.write(`${lines.join('\n')}\n\n${json}\n`);

/**
 * LanceDB is this benchmark's baseline only, so it is not a dependency: 0.37.1 (the last
 * release for Node 20) lists platform packages that the registry does not have for that
 * version, which makes `npm ci` refuse the lock file. Installed here on first use, without
 * touching package.json or the lock file.
 */
async function importLanceDb() {
  const spec = '@lancedb/lancedb@0.37.1';
  try {
    return await import('@lancedb/lancedb');
  } catch {
    process.stdout.write(`installing ${spec} for the comparison (not saved)…\n`);
    execFileSync('npm', ['install', '--no-save', '--no-package-lock', '--no-audit', '--no-fund', spec], { cwd: resolve(import.meta.dirname, '../..'), stdio: 'inherit' });
    return import('@lancedb/lancedb');
  }
}
