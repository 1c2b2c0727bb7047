/**
 * Manual benchmark of the embedded vector index (prints, asserts nothing). Run from the
 * repository root:
 *
 *   npx esbuild libs/platform/vectors/sqlite/vector-index.manual.ts --bundle --platform=node \
 *     --external:better-sqlite3 --external:sqlite-vec --outfile=/tmp/vector-index.bench.js \
 *     && NODE_PATH=$PWD/node_modules node /tmp/vector-index.bench.js [sizes…]   (default: 10000 100000)
 *
 * For each size: N random unit 384-d vectors in ONE collection, each with a ~60-word text drawn
 * from a Zipf-distributed vocabulary, written in batches of 1000 through `write` (as a
 * projection would), into a file under the OS temp dir. Then p50/p95 over 60 queries of:
 * dense k=10 (+ recall@10 against an exact brute force in JS), dense with a selective
 * metadata filter (1%), dense with a filter vec0 evaluates itself (content_id), keyword
 * (2–3 terms, limit 10), and hybrid (default fusion, limit 10, 100 candidates per leg).
 * Query embedding is not involved: vectors are random.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VectorPoint } from '@lore/platform/vectors/port';
import { seeded } from '@lore/platform/vectors/port';
import { openSqliteVectorStore } from './sqlite-vector-store.adapter';

const DIMENSIONS = 384;
const QUERIES = 60;
const VOCABULARY = 20_000;


const random = seeded(42);

function unitVector(): Float32Array {
  const v = new Float32Array(DIMENSIONS);
  let norm = 0;
  for (let i = 0; i < DIMENSIONS; i++) {
    // Sum of uniforms: roughly Gaussian, so directions are roughly uniform on the sphere.
    const x = random() + random() + random() - 1.5;
    v[i] = x;
    norm += x * x;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < DIMENSIONS; i++) v[i] = (v[i] ?? 0) / norm;
  return v;
}

/** Words w0…w19999 with Zipf(1) frequencies: a few very common, most rare. */
const cumulative: number[] = [];
{
  let sum = 0;
  for (let r = 1; r <= VOCABULARY; r++) cumulative.push((sum += 1 / r));
}
function word(): string {
  const target = random() * (cumulative.at(-1) ?? 1);
  let lo = 0;
  let hi = cumulative.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cumulative[mid] ?? 0) < target) lo = mid + 1;
    else hi = mid;
  }
  return `w${lo}`;
}

function percentile(sorted: readonly number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
}

async function time(label: string, runs: number, body: (i: number) => Promise<unknown>): Promise<string> {
  for (let i = 0; i < 3; i++) await body(i); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = process.hrtime.bigint();
    await body(i);
    ms.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  ms.sort((a, b) => a - b);
  return `${label.padEnd(44)} p50 ${percentile(ms, 0.5).toFixed(2).padStart(8)} ms   p95 ${percentile(ms, 0.95).toFixed(2).padStart(8)} ms`;
}

async function bench(size: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'lore-vector-bench-'));
  const path = join(dir, 'vectors.db');
  const store = openSqliteVectorStore({ path });
  try {
    await store.ensureIndex({ name: 'bench', dimensions: DIMENSIONS, distance: 'cosine' });
    const vectors: Float32Array[] = [];
    const started = Date.now();
    for (let offset = 0; offset < size; offset += 1000) {
      const points: VectorPoint[] = [];
      for (let i = offset; i < Math.min(size, offset + 1000); i++) {
        const vector = unitVector();
        vectors.push(vector);
        points.push({
          id: `chunk-${i}`,
          collectionId: 'col',
          vector,
          text: Array.from({ length: 60 }, word).join(' '),
          payload: { content_id: `content-${i % 1000}`, chunk_index: Math.floor(i / 1000), source: null, tags: [], metadata: { group: i % 100 } },
        });
      }
      await store.write([{ op: 'upsert', index: 'bench', points }], { name: 'bench', value: String(offset) });
    }
    const writeSeconds = (Date.now() - started) / 1000;
    await store.purgeDeleted(); // checkpoint the WAL into the file
    const index = store.index('bench');
    const queries = Array.from({ length: QUERIES + 3 }, unitVector);
    const texts = Array.from({ length: QUERIES + 3 }, () => Array.from({ length: 2 + Math.floor(random() * 2) }, word).join(' '));

    let recall = 0;
    for (let q = 0; q < 20; q++) {
      const query = queries[q] ?? unitVector();
      const exact = vectors
        .map((v, i): [number, number] => {
          let dot = 0;
          for (let d = 0; d < DIMENSIONS; d++) dot += (v[d] ?? 0) * (query[d] ?? 0);
          return [i, dot];
        })
        .sort((a, b) => b[1] - a[1])
        .slice(0, 10)
        .map(([i]) => `chunk-${i}`);
      const got = new Set((await index.searchVector({ collections: ['col'], vector: query, limit: 10 })).map((h) => h.id));
      recall += exact.filter((id) => got.has(id)).length / 10;
    }

    const at = (i: number): Float32Array => queries[i] ?? unitVector();
    const lines = [
      `--- ${size.toLocaleString('en')} points, 384 dimensions, one collection; file ${(statSync(path).size / 1e6).toFixed(0)} MB; written at ${Math.round(size / writeSeconds)} points/s`,
      await time('dense k=10', QUERIES, (i) => index.searchVector({ collections: ['col'], vector: at(i), limit: 10 })),
      `${'dense k=10 recall@10 vs exact (20 queries)'.padEnd(44)} ${(recall / 20).toFixed(3)}`,
      await time('dense k=10, metadata.group filter (1%)', QUERIES, (i) => index.searchVector({ collections: ['col'], vector: at(i), limit: 10, filter: { 'metadata.group': 7 } })),
      await time('dense k=10, content_id filter (vec0, 0.1%)', QUERIES, (i) => index.searchVector({ collections: ['col'], vector: at(i), limit: 10, filter: { content_id: 'content-7' } })),
      await time('keyword limit 10 (2-3 Zipf terms)', QUERIES, (i) => index.searchKeyword({ collections: ['col'], text: texts[i] ?? 'w1', limit: 10 })),
      await time('hybrid limit 10 (default fusion, 100/leg)', QUERIES, (i) => index.searchHybrid({ collections: ['col'], vector: at(i), text: texts[i] ?? 'w1', limit: 10 })),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const sizes = process.argv.slice(2).map(Number).filter((n) => Number.isSafeInteger(n) && n > 0);
  for (const size of sizes.length > 0 ? sizes : [10_000, 100_000]) await bench(size);
}

main().catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
