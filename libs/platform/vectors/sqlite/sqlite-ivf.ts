/**
 * An IVF (inverted file) layer over sqlite-vec, per collection of an index: k-means centroids
 * of the collection's vectors, and each point's nearest centroid (its "cluster", 1-based) as a
 * second vec0 PARTITION KEY, so that a cluster's vectors sit in their own vec0 chunks. A search
 * then runs vec0's own KNN (exact distances, no quantisation) over the `probes` clusters whose
 * centroids are nearest to the query (`cluster IN (…)`): it reads those lists instead of the
 * whole collection. Cluster 0 holds the points of a collection that has no centroids yet.
 *
 * - Below `minPoints` a collection has no centroids and is searched exactly (vec0 over all its
 *   points: ~4 ms at 10k × 384 here, so approximation buys little there).
 * - A collection is trained inside the write batch that makes it reach `minPoints`, and
 *   retrained when it has grown `retrainGrowth` times since; training moves every point of the
 *   collection to its cluster (vec0 cannot update a partition key: delete + insert).
 * - Searches fall back to the exact scan of the collection when the probed lists hold fewer
 *   than k matching points (a selective filter, a tiny collection), so a result is never short.
 *
 * Measured figures (tools/bench/search.bench.mjs, all-MiniLM-L6-v2 vectors of real passages)
 * are in ../README.md; they set the defaults below.
 */
import { seeded, type Distance } from '@lore/platform/vectors/port';

export interface IvfOptions {
  /** Points a collection needs before it gets centroids (default IVF_DEFAULTS.minPoints). */
  readonly minPoints?: number;
  /** Retrain when the collection has this many times the points it was trained on. */
  readonly retrainGrowth?: number;
  /** Clusters searched: max(minProbes, ceil(lists × probeFraction)). */
  readonly probeFraction?: number;
  readonly minProbes?: number;
}

export const IVF_DEFAULTS: Required<IvfOptions> = { minPoints: 20_000, retrainGrowth: 4, probeFraction: 0.16, minProbes: 8 };

/** Centroids of one collection. */
export interface IvfModel {
  readonly lists: number;
  readonly dimensions: number;
  /** lists × dimensions, row i is cluster i + 1. */
  readonly centroids: Float32Array;
  readonly trainedSize: number;
}

/** Lists for a collection of n points: ~√n / 2 (lists of ~2√n points), at least 16. */
export function listsFor(n: number): number {
  return Math.max(16, Math.min(4096, Math.round(Math.sqrt(n) / 2)));
}

export function probesFor(model: IvfModel, options: Required<IvfOptions>): number {
  return Math.min(model.lists, Math.max(options.minProbes, Math.ceil(model.lists * options.probeFraction)));
}

/** Cosine: unit vectors and inner product (spherical k-means); euclidean: squared L2. */
function score(distance: Distance, a: Float32Array, ao: number, b: Float32Array, bo: number, dims: number): number {
  let s = 0;
  if (distance === 'cosine') {
    for (let d = 0; d < dims; d++) s += (a[ao + d] ?? 0) * (b[bo + d] ?? 0);
    return -s;
  }
  for (let d = 0; d < dims; d++) {
    const x = (a[ao + d] ?? 0) - (b[bo + d] ?? 0);
    s += x * x;
  }
  return s;
}

function normalise(v: Float32Array, offset: number, dims: number): void {
  let norm = 0;
  for (let d = 0; d < dims; d++) norm += (v[offset + d] ?? 0) ** 2;
  norm = Math.sqrt(norm) || 1;
  for (let d = 0; d < dims; d++) v[offset + d] = (v[offset + d] ?? 0) / norm;
}

/** The cluster (1-based) nearest to vector at `offset` of `vectors`. */
export function nearestCluster(model: IvfModel, distance: Distance, vectors: Float32Array, offset = 0): number {
  let best = 0;
  let bestScore = Infinity;
  for (let c = 0; c < model.lists; c++) {
    const s = score(distance, vectors, offset, model.centroids, c * model.dimensions, model.dimensions);
    if (s < bestScore) {
      bestScore = s;
      best = c;
    }
  }
  return best + 1;
}

/** The `probes` clusters (1-based) nearest to the query, nearest first. */
export function nearestClusters(model: IvfModel, distance: Distance, query: Float32Array, probes: number): number[] {
  const q = Float32Array.from(query);
  if (distance === 'cosine') normalise(q, 0, model.dimensions);
  const scores = new Float64Array(model.lists);
  for (let c = 0; c < model.lists; c++) scores[c] = score(distance, q, 0, model.centroids, c * model.dimensions, model.dimensions);
  const order = Array.from({ length: model.lists }, (_, c) => c);
  order.sort((a, b) => (scores[a] ?? 0) - (scores[b] ?? 0));
  return order.slice(0, probes).map((c) => c + 1);
}


const TRAINING_POINTS_PER_LIST = 40;
const ITERATIONS = 8;

/**
 * k-means (Lloyd) on a sample of TRAINING_POINTS_PER_LIST × lists vectors (FAISS's usual
 * 39–256 per list), random initial centroids from the sample, ITERATIONS rounds; an emptied
 * cluster restarts at a random sample point. `vectors` holds n × dims floats (cosine: unit).
 */
export function trainIvf(vectors: Float32Array, n: number, dims: number, distance: Distance): IvfModel {
  const lists = Math.min(listsFor(n), n);
  const random = seeded(n);
  const sampleSize = Math.min(n, lists * TRAINING_POINTS_PER_LIST);
  const picked = Array.from({ length: n }, (_, i) => i);
  for (let i = 0; i < sampleSize; i++) {
    const j = i + Math.floor(random() * (n - i));
    [picked[i], picked[j]] = [picked[j] ?? j, picked[i] ?? i];
  }
  const sample = new Float32Array(sampleSize * dims);
  for (let i = 0; i < sampleSize; i++) sample.set(vectors.subarray((picked[i] ?? 0) * dims, ((picked[i] ?? 0) + 1) * dims), i * dims);
  const centroids = new Float32Array(lists * dims);
  for (let c = 0; c < lists; c++) centroids.set(sample.subarray(c * dims, (c + 1) * dims), c * dims);
  const model = { lists, dimensions: dims, centroids, trainedSize: n };
  const sums = new Float64Array(lists * dims);
  const counts = new Uint32Array(lists);
  for (let iteration = 0; iteration < ITERATIONS; iteration++) {
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < sampleSize; i++) {
      const c = nearestCluster(model, distance, sample, i * dims) - 1;
      counts[c] = (counts[c] ?? 0) + 1;
      for (let d = 0; d < dims; d++) sums[c * dims + d] = (sums[c * dims + d] ?? 0) + (sample[i * dims + d] ?? 0);
    }
    for (let c = 0; c < lists; c++) {
      const count = counts[c] ?? 0;
      if (count === 0) {
        const i = Math.floor(random() * sampleSize);
        centroids.set(sample.subarray(i * dims, (i + 1) * dims), c * dims);
        continue;
      }
      for (let d = 0; d < dims; d++) centroids[c * dims + d] = (sums[c * dims + d] ?? 0) / count;
      if (distance === 'cosine') normalise(centroids, c * dims, dims);
    }
  }
  return model;
}

export function modelBlob(model: IvfModel, cluster: number): Buffer {
  const view = model.centroids.subarray((cluster - 1) * model.dimensions, cluster * model.dimensions);
  return Buffer.from(view.buffer, view.byteOffset, view.byteLength);
}

/** Rebuilds a model from its stored rows (cluster, centroid blob), ordered by cluster. */
export function modelFromRows(rows: ReadonlyArray<{ readonly cluster: number; readonly centroid: Buffer; readonly trained_size: number }>, dims: number): IvfModel | null {
  if (rows.length === 0) return null;
  const centroids = new Float32Array(rows.length * dims);
  rows.forEach((row, i) => {
    const floats = new Float32Array(row.centroid.buffer.slice(row.centroid.byteOffset, row.centroid.byteOffset + row.centroid.byteLength));
    centroids.set(floats, i * dims);
  });
  return { lists: rows.length, dimensions: dims, centroids, trainedSize: rows[0]?.trained_size ?? 0 };
}
