// npm run bench:retrieval — nDCG@10 and recall@100 of Lore's search on the shared BEIR-format
// sets (SciFact train, CISI, Cranfield, MEDLINE), through Lore's own HTTP API and pipeline:
// every document is uploaded as a content (title + text), chunked and embedded by Lore, and
// every query searched with each search type and fusion setting. A result list of chunks is
// mapped to documents by content, keeping each document's first (best) position.
// BM25 statistics are per collection, so a set's ranking must not depend on what else the Lore
// holds: BENCH_LORE=both (default) runs every set in a Lore of its own, then all sets in ONE
// Lore (all ingested before any is queried), and prints both nDCG@10 tables and the difference
// (expected within .005 on each set and setting); `separate` or `shared` runs one of the two.
// Knobs: BENCH_SETS=scifact-train,cisi,... BENCH_LORE, BENCH_DATA (default ../shared/data), MODELS_DIR.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_DIR, inParallel, startLore, untilProcessed } from './lore-under-bench.mjs';

const SETS = (process.env.BENCH_SETS ?? 'scifact-train,cisi,cranfield,medline').split(',');
const SETTINGS = [
  { label: 'vector', body: { search_type: 'vector' } },
  { label: 'keyword', body: { search_type: 'keyword' } },
  { label: 'hybrid (default)', body: { search_type: 'hybrid' } },
  { label: 'hybrid rrf k=60', body: { search_type: 'hybrid', fusion: { method: 'rrf', k: 60 } } },
  { label: 'hybrid relative_score a=.5', body: { search_type: 'hybrid', fusion: { method: 'relative_score', alpha: 0.5 } } },
  { label: 'hybrid dbsf', body: { search_type: 'hybrid', fusion: { method: 'dbsf' } } },
  // BENCH_WEIGHTS=0.6,0.7: also weighted_score at these vector weights (to tune the default).
  ...(process.env.BENCH_WEIGHTS ?? '')
    .split(',')
    .filter(Boolean)
    .map((w) => ({ label: `hybrid weighted w=${w}`, body: { search_type: 'hybrid', fusion: { method: 'weighted_score', weight: Number(w) } } })),
];

const jsonl = (file) => readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

function qrelsOf(file) {
  const qrels = new Map();
  for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
    const [qid, did, rel] = line.split('\t');
    if (!qid || !did || Number(rel) <= 0) continue;
    if (!qrels.has(qid)) qrels.set(qid, new Map());
    qrels.get(qid).set(did, Number(rel));
  }
  return qrels;
}

/** trec_eval's ndcg_cut_10: linear gains, ideal over every judged relevant document. */
function ndcg10(ranked, judged) {
  let dcg = 0;
  ranked.slice(0, 10).forEach((doc, i) => (dcg += (judged.get(doc) ?? 0) / Math.log2(i + 2)));
  const ideal = [...judged.values()].sort((a, b) => b - a).slice(0, 10).reduce((s, g, i) => s + g / Math.log2(i + 2), 0);
  return ideal === 0 ? 0 : dcg / ideal;
}

function recall(ranked, judged, k) {
  const top = new Set(ranked.slice(0, k));
  return [...judged.keys()].filter((d) => top.has(d)).length / judged.size;
}

/** Uploads a set into a collection of its own and waits for its ingestion. */
async function ingestSet(lore, set) {
  const dir = join(DATA_DIR, set);
  // A few documents (Cranfield) have neither title nor text: nothing to upload or to find.
  const corpus = jsonl(join(dir, 'corpus.jsonl')).filter((doc) => `${doc.title ?? ''}${doc.text ?? ''}`.trim() !== '');
  const queries = jsonl(join(dir, 'queries.jsonl'));
  const qrels = qrelsOf(join(dir, 'qrels.tsv'));
  const judgedQueries = queries.filter((q) => qrels.has(String(q._id)));
  const collection = await lore.call('POST', '/api/v1/collections', { name: `bench ${set}` });
  const started = Date.now();
  await inParallel(corpus, 8, (doc) =>
    lore.call('POST', '/api/v1/contents', { collection_id: collection.id, name: String(doc._id), text: doc.title ? `${doc.title}\n\n${doc.text}` : doc.text }),
  );
  await untilProcessed(lore, collection.id);
  const { stats } = await lore.call('GET', `/api/v1/collections/${collection.id}`);
  process.stdout.write(`${set}: ${corpus.length} documents → ${stats.chunk_count} chunks, ingested in ${((Date.now() - started) / 1000).toFixed(0)} s; ${judgedQueries.length} judged queries\n`);
  return { set, collection, judgedQueries, qrels };
}

/** Every judged query of the set with every setting: nDCG@10 and recall@100. */
async function querySet(lore, { set, collection, judgedQueries, qrels }) {
  process.stdout.write(`${set}:\n`);
  const rows = [];
  for (const setting of SETTINGS) {
    let ndcg = 0;
    let rec = 0;
    await inParallel(judgedQueries, 4, async (q) => {
      const res = await lore.call('POST', '/api/v1/collections/search', { collection_id: collection.id, query: q.text, max_results: 100, ...setting.body });
      const ranked = [];
      for (const r of res.results) if (!ranked.includes(r.content_name)) ranked.push(r.content_name);
      const judged = qrels.get(String(q._id));
      ndcg += ndcg10(ranked, judged);
      rec += recall(ranked, judged, 100);
    });
    rows.push({ set, setting: setting.label, ndcg10: ndcg / judgedQueries.length, recall100: rec / judgedQueries.length });
    process.stdout.write(`  ${setting.label.padEnd(28)} nDCG@10 ${(ndcg / judgedQueries.length).toFixed(3)}  recall@100 ${(rec / judgedQueries.length).toFixed(3)}\n`);
  }
  return rows;
}

const MODE = process.env.BENCH_LORE ?? 'both';

/** One Lore per set. */
async function separate() {
  const rows = [];
  for (const set of SETS) {
    const lore = await startLore();
    try {
      rows.push(...(await querySet(lore, await ingestSet(lore, set))));
    } finally {
      await lore.stop();
    }
  }
  return rows;
}

/** All sets in one Lore, every set ingested before any is queried. */
async function shared() {
  const lore = await startLore();
  try {
    const ingested = [];
    for (const set of SETS) ingested.push(await ingestSet(lore, set));
    const rows = [];
    for (const one of ingested) rows.push(...(await querySet(lore, one)));
    return rows;
  } finally {
    await lore.stop();
  }
}

function table(title, rows) {
  process.stdout.write(`\n${title}: nDCG@10 (recall@100 over the top 100 chunks, as documents)\n`);
  process.stdout.write(`${'setting'.padEnd(28)}${SETS.map((s) => s.padStart(22)).join('')}\n`);
  for (const setting of SETTINGS) {
    const cells = SETS.map((set) => {
      const row = rows.find((r) => r.set === set && r.setting === setting.label);
      return `${row.ndcg10.toFixed(3)} (${row.recall100.toFixed(3)})`.padStart(22);
    });
    process.stdout.write(`${setting.label.padEnd(28)}${cells.join('')}\n`);
  }
}

const perSet = MODE === 'shared' ? null : await separate();
const oneLore = MODE === 'separate' ? null : await shared();
const all = perSet ?? oneLore;
if (perSet) table('One Lore per set', perSet);
if (oneLore) table('All sets in one Lore', oneLore);
if (perSet && oneLore) {
  process.stdout.write('\nnDCG@10, all sets in one Lore minus one Lore per set (BM25 statistics per collection: expected within ±.005)\n');
  process.stdout.write(`${'setting'.padEnd(28)}${SETS.map((s) => s.padStart(22)).join('')}\n`);
  let worst = 0;
  for (const setting of SETTINGS) {
    const cells = SETS.map((set) => {
      const of = (rows) => rows.find((r) => r.set === set && r.setting === setting.label).ndcg10;
      const diff = of(oneLore) - of(perSet);
      worst = Math.max(worst, Math.abs(diff));
      return `${diff >= 0 ? '+' : ''}${diff.toFixed(4)}`.padStart(22);
    });
    process.stdout.write(`${setting.label.padEnd(28)}${cells.join('')}\n`);
  }
  process.stdout.write(`largest |difference|: ${worst.toFixed(4)} → ${worst <= 0.005 ? 'within .005' : 'NOT within .005'}\n`);
}
{
  const verdicts = SETS.map((set) => {
    const of = (label) => all.find((r) => r.set === set && r.setting === label).ndcg10;
    const hybrid = of('hybrid (default)');
    return `${set}: hybrid ${hybrid.toFixed(3)} vs vector ${of('vector').toFixed(3)} / keyword ${of('keyword').toFixed(3)} → ${hybrid > of('vector') && hybrid > of('keyword') ? 'beats both' : 'DOES NOT beat both'}`;
  });
  process.stdout.write(`\n${verdicts.join('\n')}\n`);
  process.stdout.write(`\n${JSON.stringify({ retrieval: all, ...(perSet && oneLore ? { separate: perSet, shared: oneLore } : {}) })}\n`);
}
