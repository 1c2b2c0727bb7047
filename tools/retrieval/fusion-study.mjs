// Fusion study: which hybrid (dense + BM25) fusion should be Lore's default, measured on the
// shared BEIR-format sets (issue 6, "The model and the data").
//
//   node tools/retrieval/fusion-study.mjs [--sets scifact-train,cisi,cranfield,medline]
//        [--cache DIR] [--data DIR] [--models DIR] [--depths 20,50,100,200,1000]
//        [--batch 16] [--query-batch 1] [--json FILE] [--runs DIR] [--embed-only]
//   --json FILE  every configuration's figures; --runs DIR  TREC runs (bm25, dense, the
//   recommended default, runner-up and two references) to check the metrics with trec_eval.
//
// - Dense: Xenova/all-MiniLM-L6-v2, q8 file, loaded offline (env.localModelPath,
//   allowRemoteModels=false), tokenizer + model by hand so that truncation is at 256 tokens with
//   the final [SEP] restored (see the model's PROVENANCE.md), mean pooling + L2 normalisation.
//   Documents are embedded as `title + ' ' + text`. Exact cosine, top 1000.
//   Vectors are cached under --cache (default: <os.tmpdir()>/lore-fusion-study, never the repo),
//   keyed by model file, dtype, max length, batch size and a hash of the texts. The q8 file quantizes
//   activations per tensor at run time (DynamicQuantizeLinear), so a text's q8 vector depends a
//   little on its batch-mates and padding (cosine ~.996 between batched and alone; fp32 is exact):
//   documents are embedded in length-sorted batches (--batch), queries one at a time (--query-batch
//   1), as a search service embeds them.
// - Keyword: SQLite FTS5, external-content table, `porter unicode61` tokenizer, bm25() (FTS5's
//   fixed k1 1.2, b 0.75); query = the query's tokens, each quoted, OR-ed, every FTS5 syntax
//   character stripped. Top 1000.
// - Metrics: nDCG@10 (trec_eval/pytrec_eval's ndcg_cut: linear gain = graded relevance, IDCG over
//   all judged relevant documents) and recall@100, averaged over the judged queries. As in
//   trec_eval, each run is re-sorted by score, ties by document id descending.
// - Fusion families over the union of each leg's top N (N in --depths, plus some asymmetric
//   depths); `a` is always the dense leg's weight: RRF (k, weights), min-max convex (Weaviate's
//   relative score), DBSF (Qdrant), z-score convex, rank-normalised convex (Borda), score / top
//   score convex, TM2C2 (theoretical min-max, Bruch et al. 2023), raw cosine + bm25 / top bm25
//   ("cosraw"), CombMNZ. Each in three modes for a candidate that one leg's list did not return:
//   that leg gives nothing (plain), its last listed score (+f), or its true score (+c, "completed").
// - Output: markdown on stdout (sanity check against the issue's figures, the recommendation,
//   full tables, everything that meets the bar, depth sensitivity, paired tests); progress on
//   stderr. About 2 min for embedding all four sets on 2 cores (cached after), 3 min for the rest.
// Never use a published test split: the qrels used are `qrels.tsv`, or qrels/train.tsv or
// qrels/dev.tsv; qrels/test.tsv is refused.
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const MODEL = 'Xenova/all-MiniLM-L6-v2';
const DTYPE = 'q8';
const MODEL_FILE = 'onnx/model_quantized.onnx';
const MAX_TOKENS = 256;
const SEP_ID = 102n;
const DIM = 384;
const TOP = 1000;
const ALL_SETS = ['scifact-train', 'cisi', 'cranfield', 'medline'];
const LABEL = { 'scifact-train': 'SciFact train', cisi: 'CISI', cranfield: 'Cranfield', medline: 'MEDLINE' };
// Issue 6's figures (nDCG@10; Lucene-like BM25 k1 .9 b .4; fusions over top 1000), for the sanity check.
const ISSUE = {
  bm25: { 'scifact-train': 0.697, cisi: 0.362, cranfield: 0.352, medline: 0.664 },
  dense: { 'scifact-train': 0.656, cisi: 0.418, cranfield: 0.381, medline: 0.791 },
  'rrf k=60': { 'scifact-train': 0.712, cisi: 0.446, cranfield: 0.412, medline: 0.793 },
  'minmax a=.45': { 'scifact-train': 0.737, cisi: 0.442, cranfield: 0.413, medline: 0.771 },
};
const TARGET_SCIFACT = 0.735;
// What this study recommends (see the "Recommendation" section of the report), and the runner-up.
// cosraw a=0.75 +c: fused = 0.75 · cosine + 0.25 · bm25 / (the query's top bm25), every candidate
// of the union of both legs' top N scored on both legs.
const DEFAULT = 'cosraw a=0.75 +c';
const RUNNER_UP = 'tmm a=0.8 +c';
// Runs written by --runs (TREC format), for checking the metrics with trec_eval / pytrec_eval.
const RUN_CONFIGS = [[DEFAULT, 100, 100], [RUNNER_UP, 100, 100], ['rrf k=60 a=0.5', TOP, TOP], ['minmax a=0.45', TOP, TOP]];

// ---------------------------------------------------------------------------------------------
// Arguments

function parseArgs(argv) {
  const opts = {
    sets: ALL_SETS,
    cache: path.join(os.tmpdir(), 'lore-fusion-study'),
    data: path.resolve(REPO, '../shared/data'),
    models: process.env.MODELS_DIR ?? path.resolve(REPO, '../shared/models'),
    depths: [20, 50, 100, 200, 1000],
    batch: 16,
    queryBatch: 1,
    json: null,
    runs: null,
    embedOnly: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const [name, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = () => inline ?? argv[++i];
    switch (name) {
      case '--sets': opts.sets = value().split(',').map((s) => s.trim()).filter(Boolean); break;
      case '--cache': opts.cache = path.resolve(value()); break;
      case '--data': opts.data = path.resolve(value()); break;
      case '--models': opts.models = path.resolve(value()); break;
      case '--depths': opts.depths = value().split(',').map(Number); break;
      case '--batch': opts.batch = Number(value()); break;
      case '--query-batch': opts.queryBatch = Number(value()); break;
      case '--json': opts.json = path.resolve(value()); break;
      case '--runs': opts.runs = path.resolve(value()); break;
      case '--embed-only': opts.embedOnly = true; break;
      case '--help': case '-h':
        console.log(fs.readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('//')).map((l) => l.slice(3)).join('\n'));
        process.exit(0);
        break;
      default: throw new Error(`unknown argument ${arg}`);
    }
  }
  for (const [flag, dir] of [['--cache', opts.cache], ['--runs', opts.runs], ['--json', opts.json]]) {
    if (!dir) continue;
    const rel = path.relative(REPO, dir);
    if (!rel.startsWith('..') && !path.isAbsolute(rel)) throw new Error(`${flag} ${dir} is inside the repository; choose a path outside it`);
  }
  if (opts.depths.some((n) => !Number.isInteger(n) || n < 1 || n > TOP)) throw new Error(`--depths must be integers in 1..${TOP}`);
  return opts;
}

const log = (...a) => console.error(`[${new Date().toISOString().slice(11, 19)}]`, ...a);
const seconds = (t0) => (Number(process.hrtime.bigint() - t0) / 1e9).toFixed(1);

// ---------------------------------------------------------------------------------------------
// Data

function readJsonl(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

function qrelsFile(dir) {
  if (fs.existsSync(path.join(dir, 'qrels.tsv'))) return path.join(dir, 'qrels.tsv');
  for (const split of ['train', 'dev']) {
    const f = path.join(dir, 'qrels', `${split}.tsv`);
    if (fs.existsSync(f)) return f;
  }
  throw new Error(`${dir}: no qrels.tsv, qrels/train.tsv or qrels/dev.tsv (a published test split is never used)`);
}

function loadSet(dataDir, name) {
  const dir = path.join(dataDir, name);
  const corpus = readJsonl(path.join(dir, 'corpus.jsonl'));
  const docIds = corpus.map((d) => String(d._id));
  const docTexts = corpus.map((d) => `${d.title ?? ''} ${d.text ?? ''}`);
  const docIndex = new Map(docIds.map((id, i) => [id, i]));
  // trec_eval breaks score ties by document id, descending (strcmp): precompute each doc's key.
  const byId = docIds.map((_, i) => i).sort((a, b) => (docIds[a] < docIds[b] ? -1 : docIds[a] > docIds[b] ? 1 : 0));
  const tieKey = new Int32Array(docIds.length);
  byId.forEach((doc, pos) => (tieKey[doc] = pos));

  const queryText = new Map(readJsonl(path.join(dir, 'queries.jsonl')).map((q) => [String(q._id), q.text]));
  const qfile = qrelsFile(dir);
  const qrels = new Map();
  let unknownDocs = 0;
  for (const line of fs.readFileSync(qfile, 'utf8').split('\n')) {
    const cols = line.trim().split(/\s+/);
    if (cols.length < 3 || cols[0] === 'query-id') continue;
    const [qid, did, score] = cols.length >= 4 ? [cols[0], cols[2], cols[3]] : cols; // TREC 4-column or BEIR 3-column
    const doc = docIndex.get(did);
    if (doc === undefined) { unknownDocs++; continue; }
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid).set(doc, Number(score));
  }
  const queries = [];
  for (const [qid, judged] of qrels) {
    if (!queryText.has(qid)) continue;
    const gains = [...judged.values()].filter((g) => g > 0).sort((a, b) => b - a);
    let idcg = 0;
    gains.slice(0, 10).forEach((g, i) => (idcg += g / Math.log2(i + 2)));
    queries.push({ id: qid, text: queryText.get(qid), judged, nRel: gains.length, idcg });
  }
  return { name, dir, qrelsPath: qfile, docIds, docTexts, tieKey, queries, unknownDocs, graded: queries.some((q) => [...q.judged.values()].some((g) => g > 1)) };
}

// ---------------------------------------------------------------------------------------------
// Embeddings (cached on disk)

let embedder = null;

async function getEmbedder(modelsDir) {
  if (embedder) return embedder;
  const T = await import('@huggingface/transformers');
  T.env.localModelPath = modelsDir.endsWith(path.sep) ? modelsDir : modelsDir + path.sep;
  T.env.allowRemoteModels = false;
  const tokenizer = await T.AutoTokenizer.from_pretrained(MODEL);
  const model = await T.AutoModel.from_pretrained(MODEL, { dtype: DTYPE });
  embedder = async function embed(texts, what, batch) {
    const out = new Float32Array(texts.length * DIM);
    // Length-sorted batches: much less padding (q8: nearly the same vectors, see the header).
    const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
    const t0 = process.hrtime.bigint();
    let lastLog = Date.now();
    for (let s = 0; s < order.length; s += batch) {
      const idx = order.slice(s, s + batch);
      const inputs = tokenizer(idx.map((i) => texts[i]), { padding: true, truncation: true, max_length: MAX_TOKENS });
      const [n, L] = inputs.input_ids.dims;
      const ids = inputs.input_ids.data;
      const mask = inputs.attention_mask.data;
      // transformers.js truncation cuts the final [SEP]; sentence-transformers keeps it.
      if (L === MAX_TOKENS) {
        for (let r = 0; r < n; r++) {
          const last = r * L + L - 1;
          if (mask[last] === 1n && ids[last] !== SEP_ID) ids[last] = SEP_ID;
        }
      }
      const { last_hidden_state: h } = await model(inputs);
      const hd = h.data;
      const D = h.dims[2];
      if (D !== DIM) throw new Error(`model output has ${D} dimensions, expected ${DIM}`);
      for (let r = 0; r < n; r++) {
        const v = new Float64Array(D);
        let count = 0;
        for (let t = 0; t < L; t++) {
          if (mask[r * L + t] !== 1n) continue;
          count++;
          const base = (r * L + t) * D;
          for (let d = 0; d < D; d++) v[d] += hd[base + d];
        }
        let norm = 0;
        for (let d = 0; d < D; d++) { v[d] /= count; norm += v[d] * v[d]; }
        norm = Math.sqrt(norm) || 1;
        const o = idx[r] * DIM;
        for (let d = 0; d < D; d++) out[o + d] = v[d] / norm;
      }
      if (Date.now() - lastLog > 20000) {
        lastLog = Date.now();
        const done = Math.min(s + batch, order.length);
        log(`  ${what}: ${done}/${order.length} (${(done / Number(seconds(t0))).toFixed(1)} texts/s)`);
      }
    }
    log(`  ${what}: ${texts.length} texts in ${seconds(t0)} s (${(texts.length / Number(seconds(t0))).toFixed(1)} texts/s)`);
    return out;
  };
  return embedder;
}

async function vectors(opts, set, kind, texts, batch) {
  const modelPath = path.join(opts.models, MODEL, MODEL_FILE);
  const stat = fs.statSync(modelPath);
  const tag = [MODEL, MODEL_FILE, stat.size, DTYPE, MAX_TOKENS, 'sep-restored', 'mean', 'l2', `length-sorted batch ${batch}`, 'v2'].join('|');
  const hash = crypto.createHash('sha256').update(tag).update('\n').update(texts.join('\u0000')).digest('hex').slice(0, 16);
  const file = path.join(opts.cache, `${set}.${kind}.${hash}.f32`);
  if (fs.existsSync(file)) {
    const buf = fs.readFileSync(file);
    if (buf.length === texts.length * DIM * 4) {
      log(`  ${set} ${kind}: ${texts.length} vectors from cache ${file}`);
      return new Float32Array(buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.length));
    }
  }
  const embed = await getEmbedder(opts.models);
  const v = await embed(texts, `${set} ${kind}`, batch);
  fs.mkdirSync(opts.cache, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
  fs.renameSync(tmp, file);
  return v;
}

// ---------------------------------------------------------------------------------------------
// Retrieval legs

/** FTS5 MATCH expression: the query's tokens, quoted and OR-ed; nothing else survives. */
function ftsQuery(text) {
  const tokens = String(text).normalize('NFKC').match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? [];
  return tokens.map((t) => `"${t.replaceAll('"', '')}"`).join(' OR ');
}

function bm25Index(texts) {
  const db = new Database(':memory:');
  db.exec(`
    CREATE TABLE docs (id INTEGER PRIMARY KEY, body TEXT NOT NULL);
    CREATE VIRTUAL TABLE docs_fts USING fts5(body, content='docs', content_rowid='id', tokenize='porter unicode61');
    CREATE TRIGGER docs_ai AFTER INSERT ON docs BEGIN
      INSERT INTO docs_fts(rowid, body) VALUES (new.id, new.body);
    END;`);
  const insert = db.prepare('INSERT INTO docs (id, body) VALUES (?, ?)');
  db.transaction(() => texts.forEach((t, i) => insert.run(i + 1, t)))();
  // Every matching document (not only the top 1000), so that a candidate's keyword score is known
  // even when it is outside the keyword leg's top N ("completed" fusion below).
  const search = db.prepare('SELECT rowid AS id, bm25(docs_fts) AS s FROM docs_fts WHERE docs_fts MATCH ? ORDER BY s');
  return {
    /** @returns {{ order: Int32Array, score: Float64Array, rank: Int32Array }} score 0 / rank 0 = no match */
    search(text, nDocs) {
      const score = new Float64Array(nDocs), rank = new Int32Array(nDocs);
      const match = ftsQuery(text);
      const rows = match ? search.all(match) : [];
      const order = new Int32Array(rows.length);
      rows.forEach((r, i) => { order[i] = r.id - 1; score[r.id - 1] = -r.s; rank[r.id - 1] = i + 1; });
      return { order, score, rank };
    },
    close: () => db.close(),
  };
}

/** Exact cosine against every document; the order is kept for the top 1000. */
function denseSearch(qv, qi, dv, nDocs) {
  const score = new Float32Array(nDocs);
  const q = qi * DIM;
  for (let d = 0; d < nDocs; d++) {
    let s = 0;
    const o = d * DIM;
    for (let j = 0; j < DIM; j++) s += qv[q + j] * dv[o + j];
    score[d] = s;
  }
  const all = Array.from({ length: nDocs }, (_, i) => i).sort((a, b) => score[b] - score[a]);
  const rank = new Int32Array(nDocs);
  all.forEach((doc, i) => (rank[doc] = i + 1));
  return { order: Int32Array.from(all.slice(0, TOP)), score, rank };
}

// ---------------------------------------------------------------------------------------------
// Candidate unions and fusion

function legStats(order, nTop, score) {
  const n = Math.min(nTop, order.length);
  if (n === 0) return { n, min: 0, max: 0, mean: 0, sdPop: 0, sdSample: 0 };
  let min = Infinity, max = -Infinity, sum = 0;
  for (let i = 0; i < n; i++) { const s = score[order[i]]; min = Math.min(min, s); max = Math.max(max, s); sum += s; }
  const mean = sum / n;
  let ss = 0;
  for (let i = 0; i < n; i++) ss += (score[order[i]] - mean) ** 2;
  return { n, min, max, mean, sdPop: Math.sqrt(ss / n), sdSample: n > 1 ? Math.sqrt(ss / (n - 1)) : 0 };
}

/**
 * Candidates = dense top-nd ∪ keyword top-nb. Per candidate: whether each leg's list holds it
 * (inD/inB), and the leg scores and ranks the fusion may use (hd/hb = has a score). Modes, for a
 * candidate that one leg's list does not hold:
 * - 'plain': no score from that leg (the fusion decides: mostly 0);
 * - 'floor': that leg's last listed score and rank N + 1 (an upper bound, known for free), or
 *   bm25 0 when the keyword list ended before N (every match was listed);
 * - 'complete': its true score and rank on that leg (cosine; bm25(), 0 when no query term
 *   matches), what an engine gets by scoring the few candidates one leg missed.
 * Normalisation statistics always come from each leg's top-N list.
 */
function buildUnion(set, qi, nd, nb, mode) {
  const query = set.queries[qi];
  const D = set.dense[qi], B = set.bm25[qi];
  const pos = new Map();
  const docs = [];
  const dN = Math.min(nd, D.order.length), bN = Math.min(nb, B.order.length);
  for (let i = 0; i < dN; i++) { const doc = D.order[i]; if (!pos.has(doc)) { pos.set(doc, docs.length); docs.push(doc); } }
  for (let i = 0; i < bN; i++) { const doc = B.order[i]; if (!pos.has(doc)) { pos.set(doc, docs.length); docs.push(doc); } }
  const m = docs.length;
  const u = {
    m, nd, nb, docs: Int32Array.from(docs),
    inD: new Uint8Array(m), inB: new Uint8Array(m), hd: new Uint8Array(m), hb: new Uint8Array(m),
    rd: new Int32Array(m), sd: new Float64Array(m), rb: new Int32Array(m), sb: new Float64Array(m),
    key: new Int32Array(m), relPos: [], relGain: [],
    dStats: legStats(D.order, nd, D.score), bStats: legStats(B.order, nb, B.score),
    nRel: query.nRel, idcg: query.idcg,
  };
  docs.forEach((doc, p) => {
    const inD = D.rank[doc] <= nd, inB = B.rank[doc] > 0 && B.rank[doc] <= nb;
    u.inD[p] = inD ? 1 : 0;
    u.inB[p] = inB ? 1 : 0;
    if (inD || mode === 'complete') { u.hd[p] = 1; u.sd[p] = D.score[doc]; u.rd[p] = D.rank[doc]; }
    else if (mode === 'floor') { u.hd[p] = 1; u.sd[p] = D.score[D.order[dN - 1]]; u.rd[p] = dN + 1; }
    if (inB || mode === 'complete') { u.hb[p] = 1; u.sb[p] = B.score[doc]; u.rb[p] = B.rank[doc]; }
    else if (mode === 'floor') { u.hb[p] = 1; u.sb[p] = bN < nb || bN === 0 ? 0 : B.score[B.order[bN - 1]]; u.rb[p] = bN < nb ? 0 : bN + 1; }
    u.key[p] = set.tieKey[doc];
    const g = query.judged.get(doc);
    if (g > 0) { u.relPos.push(p); u.relGain.push(g); }
  });
  return u;
}

// Each fusion maps a union to one score per candidate (higher = better). `a` is the dense leg's
// weight (1 - a goes to the keyword leg) everywhere. A leg without a score for a candidate
// contributes 0 (z-score: the list's lowest z).
const mm = (s, st) => (st.max > st.min ? (s - st.min) / (st.max - st.min) : 1);
const dist = (s, st) => (st.sdSample > 0 ? (s - st.mean + 3 * st.sdSample) / (6 * st.sdSample) : 0.5);
const zs = (s, st) => (st.sdPop > 0 ? (s - st.mean) / st.sdPop : 0);
const FUSIONS = {
  dense: (u) => Float64Array.from(u.inD, (h, i) => (h ? u.sd[i] : -Infinity)),
  bm25: (u) => Float64Array.from(u.inB, (h, i) => (h ? u.sb[i] : -Infinity)),
  // Reciprocal rank fusion (Cormack et al. 2009), weighted: a/(k+rank_dense) + (1-a)/(k+rank_bm25), ranks 1-based.
  rrf: (u, { k, a }) => Float64Array.from(u.rd, (rd, i) => (rd ? a / (k + rd) : 0) + (u.rb[i] ? (1 - a) / (k + u.rb[i]) : 0)),
  // Min-max per leg over its top-N (Weaviate's relativeScoreFusion), convex combination.
  minmax: (u, { a }) => Float64Array.from(u.hd, (hd, i) => (hd ? a * mm(u.sd[i], u.dStats) : 0) + (u.hb[i] ? (1 - a) * mm(u.sb[i], u.bStats) : 0)),
  // CombMNZ on min-max scores: weighted CombSUM × number of lists that returned the document.
  combmnz: (u, { a }) => Float64Array.from(u.hd, (hd, i) => ((hd ? a * mm(u.sd[i], u.dStats) : 0) + (u.hb[i] ? (1 - a) * mm(u.sb[i], u.bStats) : 0)) * (u.inD[i] + u.inB[i])),
  // Distribution-based score fusion as in Qdrant: (s - (mean - 3 sd)) / (6 sd), sample sd of the
  // leg's list, sum; a = .5 is Qdrant's unweighted DBSF (scaled by 2 here, same order).
  dbsf: (u, { a }) => Float64Array.from(u.hd, (hd, i) => 2 * ((hd ? a * dist(u.sd[i], u.dStats) : 0) + (u.hb[i] ? (1 - a) * dist(u.sb[i], u.bStats) : 0))),
  // z-score per leg (population sd of the list), missing = the list's lowest z, convex combination.
  zscore: (u, { a }) => {
    const zdMin = zs(u.dStats.min, u.dStats), zbMin = zs(u.bStats.min, u.bStats);
    return Float64Array.from(u.hd, (hd, i) => a * (hd ? zs(u.sd[i], u.dStats) : zdMin) + (1 - a) * (u.hb[i] ? zs(u.sb[i], u.bStats) : zbMin));
  },
  // Rank-normalised scores (Borda-like): 1 - (rank - 1) / N, convex combination.
  rank: (u, { a }) => Float64Array.from(u.rd, (rd, i) => (rd ? a * (1 - (rd - 1) / u.nd) : 0) + (u.rb[i] ? (1 - a) * (1 - (u.rb[i] - 1) / u.nb) : 0)),
  // Score / the leg's top score (min-max with the theoretical minimum 0 of both scores), convex.
  topnorm: (u, { a }) => Float64Array.from(u.hd, (hd, i) => (hd && u.dStats.max > 0 ? a * (u.sd[i] / u.dStats.max) : 0) + (u.hb[i] && u.bStats.max > 0 ? (1 - a) * (u.sb[i] / u.bStats.max) : 0)),
  // Raw cosine (already bounded) + bm25 / the keyword list's top score, convex.
  cosraw: (u, { a }) => Float64Array.from(u.hd, (hd, i) => (hd ? a * u.sd[i] : 0) + (u.hb[i] && u.bStats.max > 0 ? (1 - a) * (u.sb[i] / u.bStats.max) : 0)),
  // Theoretical min-max (Bruch et al. 2023, TM2C2): cosine from its floor -1, bm25 from 0, to the list's top.
  tmm: (u, { a }) => Float64Array.from(u.hd, (hd, i) => (hd ? a * ((u.sd[i] + 1) / (u.dStats.max + 1)) : 0) + (u.hb[i] && u.bStats.max > 0 ? (1 - a) * (u.sb[i] / u.bStats.max) : 0)),
};

const MODES = ['plain', 'floor', 'complete'];
const SUFFIX = { plain: '', floor: ' +f', complete: ' +c' };

function configName(method, p) {
  switch (method) {
    case 'dense': case 'bm25': return method;
    case 'rrf': return `rrf k=${p.k} a=${p.a}`;
    default: return `${method} a=${p.a}`;
  }
}

const ALPHAS = [0.1, 0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9];
const RRF_K = [1, 2, 5, 10, 20, 40, 60, 100];
const RRF_A = [0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7];
function fusionConfigs() {
  const configs = [];
  for (const k of RRF_K) for (const a of RRF_A) configs.push({ method: 'rrf', p: { k, a } });
  for (const method of ['minmax', 'dbsf', 'zscore', 'rank', 'topnorm', 'tmm', 'cosraw', 'combmnz']) for (const a of ALPHAS) configs.push({ method, p: { a } });
  return configs;
}

/** nDCG@10 and recall@100 of one scored union; ranks as trec_eval would sort (score desc, docid desc). */
function evalUnion(u, s) {
  let dcg = 0, hits = 0;
  for (let j = 0; j < u.relPos.length; j++) {
    const p = u.relPos[j];
    const sp = s[p];
    if (sp === -Infinity) continue; // not retrieved by this run
    const kp = u.key[p];
    let r = 1;
    for (let t = 0; t < u.m && r <= 100; t++) if (s[t] > sp || (s[t] === sp && u.key[t] > kp)) r++;
    if (r <= 10) dcg += u.relGain[j] / Math.log2(r + 1);
    if (r <= 100) hits++;
  }
  return [u.idcg > 0 ? dcg / u.idcg : 0, u.nRel > 0 ? hits / u.nRel : 0];
}

function evaluate(unions, method, p) {
  const nq = unions.length;
  const ndcg = new Float64Array(nq), recall = new Float64Array(nq);
  for (let q = 0; q < nq; q++) [ndcg[q], recall[q]] = evalUnion(unions[q], FUSIONS[method](unions[q], p));
  const mean = (x) => x.reduce((a, b) => a + b, 0) / x.length;
  return { ndcg: mean(ndcg), recall: mean(recall), perQuery: ndcg };
}

// ---------------------------------------------------------------------------------------------
// Paired randomisation test (sign flips) on per-query nDCG differences.

function pairedTest(x, y, rounds = 20000) {
  const d = Array.from(x, (v, i) => v - y[i]);
  const n = d.length;
  const obs = Math.abs(d.reduce((a, b) => a + b, 0));
  let seed = 0x9e3779b9, extreme = 0;
  const rnd = () => { seed ^= seed << 13; seed ^= seed >>> 17; seed ^= seed << 5; return (seed >>> 0) / 4294967296; };
  for (let r = 0; r < rounds; r++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += rnd() < 0.5 ? d[i] : -d[i];
    if (Math.abs(s) >= obs - 1e-12) extreme++;
  }
  return { diff: obs / n * Math.sign(d.reduce((a, b) => a + b, 0)), wins: d.filter((v) => v > 1e-12).length, losses: d.filter((v) => v < -1e-12).length, p: (extreme + 1) / (rounds + 1) };
}

// ---------------------------------------------------------------------------------------------
// Main

const f3 = (x) => (x === undefined ? '–' : x.toFixed(3).replace(/^0/, ''));

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const tStart = process.hrtime.bigint();
  log(`sets ${opts.sets.join(', ')}; data ${opts.data}; models ${opts.models}; cache ${opts.cache}`);
  const sets = [];
  for (const name of opts.sets) {
    const set = loadSet(opts.data, name);
    log(`${name}: ${set.docIds.length} docs, ${set.queries.length} judged queries, qrels ${path.relative(opts.data, set.qrelsPath)}${set.graded ? ' (graded)' : ''}${set.unknownDocs ? `, ${set.unknownDocs} qrels rows with unknown docs skipped` : ''}`);
    const tEmb = process.hrtime.bigint();
    set.docVecs = await vectors(opts, name, 'corpus', set.docTexts, opts.batch);
    set.queryVecs = await vectors(opts, name, 'queries', set.queries.map((q) => q.text), opts.queryBatch);
    set.embedSeconds = Number(seconds(tEmb));
    sets.push(set);
  }
  if (opts.embedOnly) { log(`embeddings ready in ${seconds(tStart)} s`); return; }

  // Retrieval legs, top 1000 each.
  for (const set of sets) {
    const t0 = process.hrtime.bigint();
    const idx = bm25Index(set.docTexts);
    set.bm25 = set.queries.map((q) => idx.search(q.text, set.docIds.length));
    idx.close();
    set.dense = set.queries.map((_, qi) => denseSearch(set.queryVecs, qi, set.docVecs, set.docIds.length));
    set.emptyBm25 = set.bm25.filter((l) => l.order.length === 0).length;
    log(`${set.name}: legs in ${seconds(t0)} s${set.emptyBm25 ? ` (${set.emptyBm25} queries with no keyword match)` : ''}`);
  }

  // Evaluate every configuration at every depth pair.
  const depthPairs = opts.depths.map((n) => [n, n]);
  for (const extra of [[100, 20], [100, 50], [200, 50], [1000, 100], [50, 100], [20, 100], [50, 20]]) {
    if (!depthPairs.some(([a, b]) => a === extra[0] && b === extra[1])) depthPairs.push(extra);
  }
  const configs = fusionConfigs();
  const results = new Map(); // `${name}|${nd}|${nb}` -> { name, method, p, mode, nd, nb, sets: {set: {ndcg, recall, perQuery}} }
  const put = (name, method, p, mode, nd, nb, set, r) => {
    const key = `${name}|${nd}|${nb}`;
    if (!results.has(key)) results.set(key, { name, method, p, mode, nd, nb, sets: {} });
    results.get(key).sets[set] = r;
  };
  for (const set of sets) {
    const t0 = process.hrtime.bigint();
    const full = set.queries.map((_, qi) => buildUnion(set, qi, TOP, TOP, 'plain'));
    put('bm25', 'bm25', {}, 'plain', TOP, TOP, set.name, evaluate(full, 'bm25', {}));
    put('dense', 'dense', {}, 'plain', TOP, TOP, set.name, evaluate(full, 'dense', {}));
    for (const mode of MODES) {
      for (const [nd, nb] of depthPairs) {
        const unions = nd === TOP && nb === TOP && mode === 'plain' ? full : set.queries.map((_, qi) => buildUnion(set, qi, nd, nb, mode));
        for (const { method, p } of configs) put(configName(method, p) + SUFFIX[mode], method, p, mode, nd, nb, set.name, evaluate(unions, method, p));
      }
    }
    log(`${set.name}: ${configs.length} fusions × ${depthPairs.length} depth pairs × ${MODES.length} modes evaluated in ${seconds(t0)} s`);
  }

  if (opts.runs) writeRuns(sets, opts.runs);
  if (opts.json) {
    const out = [...results.values()].map((r) => ({ name: r.name, method: r.method, params: r.p, missing_scores: r.mode, depth_dense: r.nd, depth_bm25: r.nb, sets: Object.fromEntries(Object.entries(r.sets).map(([s, v]) => [s, { ndcg10: v.ndcg, recall100: v.recall }])) }));
    fs.writeFileSync(opts.json, JSON.stringify(out, null, 1));
    log(`results written to ${opts.json}`);
  }
  report(sets, results, opts, depthPairs);
  log(`total ${seconds(tStart)} s`);
}

/** TREC run files: one per set and configuration, ranked as trec_eval ranks (score desc, docid desc). */
function writeRuns(sets, dir) {
  fs.mkdirSync(dir, { recursive: true });
  const all = [['bm25', TOP, TOP], ['dense', TOP, TOP], ...RUN_CONFIGS];
  const byName = new Map();
  for (const mode of MODES) for (const { method, p } of fusionConfigs()) byName.set(configName(method, p) + SUFFIX[mode], { method, p, mode });
  byName.set('bm25', { method: 'bm25', p: {}, mode: 'plain' });
  byName.set('dense', { method: 'dense', p: {}, mode: 'plain' });
  for (const set of sets) {
    for (const [name, nd, nb] of all) {
      const cfg = byName.get(name);
      const lines = [];
      set.queries.forEach((q, qi) => {
        const u = buildUnion(set, qi, nd, nb, cfg.mode);
        const s = FUSIONS[cfg.method](u, cfg.p);
        const docs = [];
        for (let i = 0; i < u.m; i++) if (s[i] !== -Infinity) docs.push(i);
        docs.sort((x, y) => s[y] - s[x] || u.key[y] - u.key[x]);
        docs.slice(0, TOP).forEach((i, r) => lines.push(`${q.id} Q0 ${set.docIds[u.docs[i]]} ${r + 1} ${s[i]} ${name.replaceAll(' ', '_')}`));
      });
      const file = path.join(dir, `${set.name}.${name.replaceAll(' ', '_').replaceAll('+', 'plus')}.${nd}-${nb}.run`);
      fs.writeFileSync(file, lines.join('\n') + '\n');
    }
  }
  log(`runs written to ${dir}`);
}

function report(sets, results, opts, depthPairs) {
  const names = sets.map((s) => s.name);
  const get = (name, nd = TOP, nb = TOP) => results.get(`${name}|${nd}|${nb}`);
  const bm25 = get('bm25'), dense = get('dense');
  const hasScifact = names.includes('scifact-train');
  const fusions = [...results.values()].filter((r) => r.method !== 'bm25' && r.method !== 'dense');
  /** Flags: A = beats both single legs on every set (nDCG@10), B = ≥ .735 on SciFact train. */
  const judge = (r) => {
    const margins = names.map((s) => r.sets[s].ndcg - Math.max(bm25.sets[s].ndcg, dense.sets[s].ndcg));
    const minMargin = Math.min(...margins);
    return { a: minMargin > 0, b: hasScifact ? r.sets['scifact-train'].ndcg >= TARGET_SCIFACT : true, minMargin, margins };
  };
  const passes = (r) => { const j = judge(r); return j.a && j.b; };
  // Neighbours: the next parameter value either side (alpha; RRF k and weight), and the next
  // symmetric depth either side, everything else equal.
  const neighbours = (r) => {
    const out = [];
    const suffix = SUFFIX[r.mode];
    const near = (list, v) => { const i = list.indexOf(v); return [list[i - 1], list[i + 1]].filter((x) => x !== undefined); };
    if (r.method === 'rrf') {
      for (const k of near(RRF_K, r.p.k)) out.push(get(configName('rrf', { k, a: r.p.a }) + suffix, r.nd, r.nb));
      for (const a of near(RRF_A, r.p.a)) out.push(get(configName('rrf', { k: r.p.k, a }) + suffix, r.nd, r.nb));
    } else {
      for (const a of near(ALPHAS, r.p.a)) out.push(get(configName(r.method, { a }) + suffix, r.nd, r.nb));
    }
    if (r.nd === r.nb) for (const n of near(opts.depths, r.nd)) out.push(get(r.name, n, n));
    return out.filter(Boolean);
  };
  const out = [];
  const p = (line = '') => out.push(line);
  const label = (s) => LABEL[s] ?? s;
  const header = (extra = []) => {
    p(`| method | ${names.map(label).join(' | ')} | ${names.map((s) => `R@100 ${label(s)}`).join(' | ')}${extra.length ? ' | ' + extra.join(' | ') : ''} |`);
    p(`|---|${names.map(() => '---:').join('|')}|${names.map(() => '---:').join('|')}${extra.map(() => '|---').join('')}|`);
  };
  const row = (text, r, extra = []) => p(`| ${text} | ${names.map((s) => f3(r.sets[s].ndcg)).join(' | ')} | ${names.map((s) => f3(r.sets[s].recall)).join(' | ')}${extra.length ? ' | ' + extra.join(' | ') : ''} |`);
  const flags = (r) => { const j = judge(r); return [j.a ? 'A' : '', j.b && hasScifact ? 'B' : '', (j.minMargin >= 0 ? '+' : '') + j.minMargin.toFixed(3)]; };

  p(`# Fusion study (nDCG@10, then recall@100)`);
  p();
  p(`Model ${MODEL} (${DTYPE}, ${MAX_TOKENS} tokens, [SEP] restored, mean pooling, normalised; documents in length-sorted batches of ${opts.batch}, queries in batches of ${opts.queryBatch}); exact cosine; SQLite FTS5 bm25() (porter unicode61, k1 1.2, b 0.75), query tokens quoted and OR-ed.`);
  p(`Sets: ${sets.map((s) => `${label(s.name)} ${s.docIds.length} docs / ${s.queries.length} queries (${path.relative(opts.data, s.qrelsPath)}${s.graded ? ', graded' : ''}${s.emptyBm25 ? `, ${s.emptyBm25} with no keyword match` : ''})`).join('; ')}.`);
  p();
  p(`## Sanity check against issue 6 (fusions over top 1000 of each leg)`);
  p();
  p(`| method | ${names.map((s) => `${label(s)} here | issue`).join(' | ')} |`);
  p(`|---|${names.map(() => '---:|---:').join('|')}|`);
  for (const [text, name, issueKey] of [['BM25', 'bm25', 'bm25'], ['dense (q8)', 'dense', 'dense'], ['RRF k=60', 'rrf k=60 a=0.5', 'rrf k=60'], ['min-max, .45 on dense', 'minmax a=0.45', 'minmax a=.45'], ['min-max, .45 on BM25', 'minmax a=0.55', 'minmax a=.45']]) {
    const r = get(name);
    if (r) p(`| ${text} | ${names.map((s) => `${f3(r.sets[s].ndcg)} | ${f3(ISSUE[issueKey]?.[s])}`).join(' | ')} |`);
  }
  p();
  p(`"a" is the dense leg's weight (1 − a on BM25) in every method. A candidate that one leg's top-N list did not return gets from that leg: nothing (no suffix: contributes 0; z-score: the list's lowest z); "+f" = floor: the list's last score and rank N+1 (bm25 0 if the list ended before N); "+c" = completed: its true score and rank on that leg, scored exactly. Normalisation statistics always come from each leg's top-N list.`);
  p(`Flags: A = beats both BM25 and dense (nDCG@10) on every set; B = ≥ ${TARGET_SCIFACT} on SciFact train; margin = min over sets of (fusion − better single leg).`);

  // The recommendation: depth table, parameter neighbourhood, paired tests.
  const fmt = (t) => `${t.diff >= 0 ? '+' : ''}${t.diff.toFixed(3)} (${t.wins}/${t.losses}, ${t.p < 0.001 ? 'p<.001' : `p=${t.p.toFixed(3)}`})`;
  const rec = results.get(`${DEFAULT}|100|100`);
  if (rec) {
    p();
    p(`## Recommendation: ${DEFAULT} (runner-up: ${RUNNER_UP})`);
    p();
    p(`cosraw: fused = a · cosine + (1 − a) · bm25 / (the query's top bm25 score), a = ${rec.p.a}; over the union of each leg's top N, every candidate scored on both legs (+c). tmm (TM2C2, Bruch et al. 2023): a · (cos + 1) / (top cos + 1) + (1 − a) · bm25 / top bm25.`);
    p(`Margins over the better single leg at 100/100: ${names.map((s, i) => `${label(s)} ${(judge(rec).margins[i] >= 0 ? '+' : '') + judge(rec).margins[i].toFixed(3)}`).join(', ')}.`);
    p();
    p(`### By candidate depth per leg`);
    p();
    header(['depth d/b', 'A', 'B', 'margin']);
    row('BM25 (top 1000)', bm25, ['', '', '', '']);
    row('dense (top 1000)', dense, ['', '', '', '']);
    for (const name of [DEFAULT, RUNNER_UP, DEFAULT.replace(' +c', ' +f'), DEFAULT.replace(' +c', '')]) {
      for (const [nd, nb] of depthPairs) { const r = get(name, nd, nb); if (r) row(name, r, [`${nd}/${nb}`, ...flags(r)]); }
    }
    p();
    p(`### Neighbouring weights (each leg's top 100)`);
    p();
    header(['A', 'B', 'margin']);
    for (const fam of [rec.method, results.get(`${RUNNER_UP}|100|100`)?.method].filter(Boolean)) {
      for (const mode of ['complete', 'floor', 'plain']) {
        for (const a of ALPHAS) { const r = get(configName(fam, { a }) + SUFFIX[mode], 100, 100); if (r && a >= 0.5) row(r.name, r, flags(r)); }
      }
    }
    p();
    p(`### Paired randomisation tests, each leg's top 100 (per-query nDCG@10, 20000 sign flips): fusion − single leg`);
    p();
    p(`| fusion | set | − BM25: diff (wins/losses, p) | − dense: diff (wins/losses, p) |`);
    p(`|---|---|---|---|`);
    for (const name of [DEFAULT, RUNNER_UP]) {
      const r = get(name, 100, 100);
      if (r) for (const s of names) p(`| ${name} | ${label(s)} | ${fmt(pairedTest(r.sets[s].perQuery, bm25.sets[s].perQuery))} | ${fmt(pairedTest(r.sets[s].perQuery, dense.sets[s].perQuery))} |`);
    }
  }

  const fullTable = (n, mode) => {
    if (!depthPairs.some(([a, b]) => a === n && b === n)) return;
    p();
    p(`## All fusions over each leg's top ${n}${mode === 'plain' ? '' : `, missing scores: ${mode} (${SUFFIX[mode].trim()})`}`);
    p();
    header(['A', 'B', 'margin']);
    row('BM25 (top 1000)', bm25, ['', '', '']);
    row('dense (top 1000)', dense, ['', '', '']);
    for (const r of fusions) if (r.nd === n && r.nb === n && r.mode === mode) row(r.name, r, flags(r));
  };
  fullTable(TOP, 'plain');
  for (const mode of MODES) fullTable(100, mode);
  fullTable(50, 'complete');

  const passing = fusions.filter(passes).map((r) => {
    const nb = neighbours(r);
    return { r, j: judge(r), nbPass: nb.filter(passes).length, nbA: nb.filter((x) => judge(x).a).length, nbN: nb.length };
  });
  passing.sort((x, y) => y.nbPass / (y.nbN || 1) - x.nbPass / (x.nbN || 1) || y.j.minMargin - x.j.minMargin);
  p();
  p(`## Configurations meeting the bar (A and B), any depth: ${passing.length} of ${fusions.length}`);
  p();
  p(`Sorted by how many of their neighbours (next parameter value either side, next symmetric depth either side) also meet it, then by margin.`);
  p();
  header(['depth d/b', 'margin', 'neighbours A+B', 'neighbours A']);
  for (const { r, j, nbPass, nbA, nbN } of passing.slice(0, 100)) row(r.name, r, [`${r.nd}/${r.nb}`, j.minMargin.toFixed(3), `${nbPass}/${nbN}`, `${nbA}/${nbN}`]);
  if (passing.length > 100) p(`| … and ${passing.length - 100} more (--json has them all) |`);

  const families = ['rrf', 'minmax', 'dbsf', 'zscore', 'rank', 'topnorm', 'tmm', 'cosraw', 'combmnz'];
  p();
  p(`## Best of each family per symmetric depth (highest margin among those with B, else highest margin)`);
  p();
  header(['depth', 'A', 'B', 'margin']);
  for (const mode of MODES) {
    for (const depth of opts.depths) {
      for (const fam of families) {
        const cands = fusions.filter((r) => r.method === fam && r.nd === depth && r.nb === depth && r.mode === mode).map((r) => ({ r, j: judge(r) }));
        const withB = cands.filter(({ j }) => j.b);
        const pool = (withB.length ? withB : cands).sort((x, y) => y.j.minMargin - x.j.minMargin);
        if (pool[0]) row(pool[0].r.name, pool[0].r, [String(depth), ...flags(pool[0].r)]);
      }
    }
  }

  // Depth sensitivity: canonical settings, and the most robust passing configurations.
  const depthNames = new Set(['rrf k=60 a=0.5', 'minmax a=0.45', 'minmax a=0.5', 'dbsf a=0.5', 'zscore a=0.5', 'minmax a=0.5 +c', 'dbsf a=0.5 +c', 'zscore a=0.5 +c', 'topnorm a=0.6', 'topnorm a=0.6 +f', 'topnorm a=0.6 +c']);
  for (const { r } of passing.slice(0, 8)) depthNames.add(r.name);
  p();
  p(`## nDCG@10 by candidate depth per leg (N dense / N BM25)`);
  p();
  p(`| method | depth | ${names.map(label).join(' | ')} | A | B | margin |`);
  p(`|---|---|${names.map(() => '---:').join('|')}|---|---|---|`);
  for (const name of depthNames) {
    for (const [nd, nb] of depthPairs) {
      const r = get(name, nd, nb);
      if (r) p(`| ${name} | ${nd}/${nb} | ${names.map((s) => f3(r.sets[s].ndcg)).join(' | ')} | ${flags(r).join(' | ')} |`);
    }
  }

  const ranked = passing.length ? passing.map(({ r }) => r) : [...fusions].sort((x, y) => judge(y).minMargin - judge(x).minMargin);
  const top = [];
  for (const r of ranked) if (top.length < 4 && !top.some((t) => t.name === r.name)) top.push(get(r.name, 100, 100) ?? r);
  p();
  p(`## Paired randomisation tests (per-query nDCG@10, 20000 sign flips): fusion − single leg`);
  p();
  p(`| fusion | depth | set | − BM25: diff (wins/losses, p) | − dense: diff (wins/losses, p) |`);
  p(`|---|---|---|---|---|`);
  for (const r of top) {
    for (const s of names) p(`| ${r.name} | ${r.nd}/${r.nb} | ${label(s)} | ${fmt(pairedTest(r.sets[s].perQuery, bm25.sets[s].perQuery))} | ${fmt(pairedTest(r.sets[s].perQuery, dense.sets[s].perQuery))} |`);
  }
  p();
  p(`Embedding (or cache load) per set: ${sets.map((s) => `${label(s.name)} ${s.embedSeconds} s`).join(', ')}.`);
  console.log(out.join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
