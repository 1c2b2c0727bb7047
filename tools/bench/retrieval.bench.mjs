// npm run bench:retrieval — nDCG@10 and recall@100 of Lore's search on the shared BEIR-format
// sets (SciFact train, CISI, Cranfield, MEDLINE), through Lore's own HTTP API and pipeline:
// every document is uploaded as a content (title + text), chunked and embedded by Lore, and
// every query searched with each search type and fusion setting. A result list of chunks is
// mapped to documents by content, keeping each document's first (best) position.
// Knobs: BENCH_SETS=scifact-train,cisi,... BENCH_DATA (default ../shared/data), MODELS_DIR.
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

async function benchSet(lore, set) {
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

// One Lore per set: BM25 statistics are those of the whole vector index, which every
// collection of a model shares (see the README), so sets ingested side by side would move
// each other's keyword scores.
const all = [];
for (const set of SETS) {
  const lore = await startLore();
  try {
    all.push(...(await benchSet(lore, set)));
  } finally {
    await lore.stop();
  }
}
{
  process.stdout.write('\nnDCG@10 (recall@100 over the top 100 chunks, as documents)\n');
  process.stdout.write(`${'setting'.padEnd(28)}${SETS.map((s) => s.padStart(22)).join('')}\n`);
  for (const setting of SETTINGS) {
    const cells = SETS.map((set) => {
      const row = all.find((r) => r.set === set && r.setting === setting.label);
      return `${row.ndcg10.toFixed(3)} (${row.recall100.toFixed(3)})`.padStart(22);
    });
    process.stdout.write(`${setting.label.padEnd(28)}${cells.join('')}\n`);
  }
  const verdicts = SETS.map((set) => {
    const of = (label) => all.find((r) => r.set === set && r.setting === label).ndcg10;
    const hybrid = of('hybrid (default)');
    return `${set}: hybrid ${hybrid.toFixed(3)} vs vector ${of('vector').toFixed(3)} / keyword ${of('keyword').toFixed(3)} → ${hybrid > of('vector') && hybrid > of('keyword') ? 'beats both' : 'DOES NOT beat both'}`;
  });
  process.stdout.write(`\n${verdicts.join('\n')}\n`);
  process.stdout.write(`\n${JSON.stringify({ retrieval: all })}\n`);
}
