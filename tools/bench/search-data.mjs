// The data of tools/bench/search.bench.mjs: real passages of the BEIR-format sets with their
// cached all-MiniLM-L6-v2 vectors, and, past what the cache holds, synthetic chunks made of
// them (method below).
//
// Real texts: first each document cut at sentence ends into chunks of at most ~100 words (what
// an ingestion splitter makes), then windows of two consecutive sentences (stride one), then
// single sentences; deduplicated, in a fixed pseudo-random order (about 100k in all for the
// four sets). Vectors are cached in <cache>/embeddings-<model>-<dtype>.bin keyed by the text's
// SHA-256, so only the first run embeds (resumable, it appends as it goes).
//
// Synthetic chunks (sizes beyond the real texts, e.g. the 1M point), seeded and deterministic:
// chunk j picks a real chunk A and one of A's 8 nearest real neighbours B (by cosine, found
// with an HNSW graph over the real vectors, M 16, ef 200), and
// - text: the first half of A's sentences followed by the second half of B's: real sentences
//   in a real neighbourhood, so term statistics and co-occurrences stay those of the corpus;
// - vector: (1 − t)·vA + t·vB renormalised, t uniform in [0.2, 0.8]: a point between two real
//   neighbours, so the density grows where the real data is dense, as more passages on the
//   same topics would make it (no isotropic noise, which real embeddings do not have).
// The text is not re-embedded (that would take ~2.5 h for 900k here): the vector follows the
// text's two sources, which is what an embedding of a recombined text does to first order.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const DIMENSIONS = 384;
const RECORD = 32 + DIMENSIONS * 4;
const log = (line) => process.stderr.write(`${line}\n`);

export function seeded(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function shuffle(items, seed) {
  const random = seeded(seed);
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

export const readJsonl = (path) => readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l));
const sentencesOf = (text) => text.replace(/\s+/g, ' ').trim().split(/(?<=[.!?])\s+/).filter((s) => s.length > 0);
const words = (text) => text.split(' ').length;

export function corpusTexts(dataSetsDir, sets, max) {
  const chunks = [];
  const windows = [];
  const singles = [];
  for (const set of sets) {
    for (const doc of readJsonl(join(dataSetsDir, set, 'corpus.jsonl'))) {
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

/** The texts' vectors, from the cache, embedding (and appending) the missing ones. */
export async function embedAll(cacheDir, provider, texts, model, dtype) {
  const path = join(cacheDir, `embeddings-${model.replace(/[^a-zA-Z0-9]+/g, '_')}-${dtype}.bin`);
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

const NEIGHBOURS = 8;

/** Each real vector's NEIGHBOURS nearest other real vectors (HNSW), cached beside the embeddings. */
function realNeighbours(cacheDir, hnswlib, vectors) {
  const n = vectors.length;
  const path = join(cacheDir, `neighbours-${n}.bin`);
  if (existsSync(path)) {
    const buf = readFileSync(path);
    if (buf.length === n * NEIGHBOURS * 4) return new Uint32Array(buf.buffer, buf.byteOffset, n * NEIGHBOURS);
  }
  log(`synthesis: nearest neighbours of ${n} real vectors (HNSW, once; cached in ${path}) …`);
  const index = new hnswlib.HierarchicalNSW('cosine', DIMENSIONS);
  index.initIndex({ maxElements: n, m: 16, efConstruction: 100, randomSeed: 7 });
  vectors.forEach((v, i) => index.addPoint(Array.from(v), i));
  index.setEf(200);
  const out = new Uint32Array(n * NEIGHBOURS);
  vectors.forEach((v, i) => {
    const found = index.searchKnn(Array.from(v), NEIGHBOURS + 1).neighbors.filter((j) => j !== i);
    for (let k = 0; k < NEIGHBOURS; k++) out[i * NEIGHBOURS + k] = found[k] ?? found[0] ?? i;
  });
  writeFileSync(path, Buffer.from(out.buffer));
  return out;
}

/** `count` synthetic chunks from the real ones (method in the header): texts and unit vectors. */
export function synthesise(cacheDir, hnswlib, texts, vectors, count) {
  const neighbours = realNeighbours(cacheDir, hnswlib, vectors);
  const sentences = texts.map(sentencesOf);
  const random = seeded(2026);
  const outTexts = new Array(count);
  const outVectors = new Array(count);
  for (let j = 0; j < count; j++) {
    const a = Math.floor(random() * texts.length);
    const b = neighbours[a * NEIGHBOURS + Math.floor(random() * NEIGHBOURS)];
    const sa = sentences[a];
    const sb = sentences[b];
    outTexts[j] = [...sa.slice(0, Math.ceil(sa.length / 2)), ...sb.slice(Math.floor(sb.length / 2))].join(' ');
    const t = 0.2 + 0.6 * random();
    const v = new Float32Array(DIMENSIONS);
    let norm = 0;
    for (let d = 0; d < DIMENSIONS; d++) {
      v[d] = (1 - t) * vectors[a][d] + t * vectors[b][d];
      norm += v[d] * v[d];
    }
    norm = Math.sqrt(norm) || 1;
    for (let d = 0; d < DIMENSIONS; d++) v[d] /= norm;
    outVectors[j] = v;
  }
  return { texts: outTexts, vectors: outVectors };
}
