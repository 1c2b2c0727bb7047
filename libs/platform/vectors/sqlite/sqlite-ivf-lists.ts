/**
 * The IVF state of a store's indexes (see `sqlite-ivf.ts`): which indexes have the `cluster`
 * layout, each collection's centroids (cached, loaded from `vec_ivf_x`), the cluster of a new
 * point, and training inside a write transaction. The cache is dropped whenever a transaction
 * that may have changed centroids rolls back, and on reset / drop.
 */
import type Database from 'better-sqlite3';
import type { VectorIndexDefinition } from '@lore/platform/vectors/port';
import { IVF_DEFAULTS, modelBlob, modelFromRows, nearestCluster, probesFor, trainIvf } from './sqlite-ivf';
import type { IvfModel, IvfOptions } from './sqlite-ivf';
import { hasIvfLayout, tablesOf } from './sqlite-vector-schema';
import type { Param } from './sqlite-vector-schema';

interface Sql {
  prepare(sql: string): Database.Statement<Param[]>;
  run(sql: string, params: readonly Param[]): Database.RunResult;
}

interface KnnRow {
  readonly rowid: number | bigint;
  readonly embedding: Buffer;
  readonly content_id: string;
  readonly source: string;
  readonly chunk_index: number | bigint;
  readonly cluster: number | bigint;
}

export class IvfLists {
  readonly options: Required<IvfOptions>;
  private readonly layouts = new Map<string, boolean>();
  private readonly models = new Map<string, IvfModel | null>();

  constructor(
    private readonly sql: Sql,
    options: IvfOptions | false | undefined,
  ) {
    // `false`: never train (every search exact), whatever the layout.
    this.options = options === false ? { ...IVF_DEFAULTS, minPoints: Number.POSITIVE_INFINITY } : { ...IVF_DEFAULTS, ...options };
  }

  clear(): void {
    this.layouts.clear();
    this.models.clear();
  }

  /** Whether the index's vec0 table has the `cluster` partition key. */
  layout(name: string): boolean {
    let ivf = this.layouts.get(name);
    if (ivf === undefined) {
      const sql = this.sql.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).pluck(true).get(tablesOf(name).knn) as string | undefined;
      ivf = hasIvfLayout(sql);
      this.layouts.set(name, ivf);
    }
    return ivf;
  }

  /** The collection's centroids, or null (searched exactly; new points go to cluster 0). */
  model(definition: VectorIndexDefinition, collection: string): IvfModel | null {
    if (!this.layout(definition.name)) return null;
    const key = `${definition.name}\u0000${collection}`;
    let model = this.models.get(key);
    if (model === undefined) {
      const rows = this.sql
        .prepare(`SELECT cluster, centroid, trained_size FROM ${tablesOf(definition.name).ivf} WHERE collection_id = ? ORDER BY cluster`)
        .all(collection) as Array<{ cluster: number; centroid: Buffer; trained_size: number }>;
      model = modelFromRows(rows, definition.dimensions);
      this.models.set(key, model);
    }
    return model;
  }

  /** The cluster a point with this (stored) vector belongs to. */
  clusterOf(definition: VectorIndexDefinition, collection: string, vector: Float32Array): number {
    const model = this.model(definition, collection);
    return model ? nearestCluster(model, definition.distance, vector) : 0;
  }

  probes(model: IvfModel): number {
    return probesFor(model, this.options);
  }

  /** After a batch touched these collections: trains, retrains, or forgets an emptied collection's centroids. */
  maintain(definition: VectorIndexDefinition, collections: Iterable<string>): void {
    if (!this.layout(definition.name)) return;
    const { points, ivf } = tablesOf(definition.name);
    for (const collection of collections) {
      const count = Number(this.sql.prepare(`SELECT count(*) FROM ${points} WHERE collection_id = ?`).pluck(true).get(collection));
      const model = this.model(definition, collection);
      if (count === 0 && model) {
        this.sql.run(`DELETE FROM ${ivf} WHERE collection_id = ?`, [collection]);
        this.models.delete(`${definition.name}\u0000${collection}`);
      } else if (count >= this.options.minPoints && (!model || count >= model.trainedSize * this.options.retrainGrowth)) {
        this.train(definition, collection);
      }
    }
  }

  /** k-means over the collection's vectors, then every point moved to its cluster (delete + insert: vec0 cannot update a partition key). */
  private train(definition: VectorIndexDefinition, collection: string): void {
    const { knn, ivf } = tablesOf(definition.name);
    const dims = definition.dimensions;
    const rows = this.sql.prepare(`SELECT rowid, embedding, content_id, source, chunk_index, cluster FROM ${knn} WHERE collection_id = ?`).all(collection) as KnnRow[];
    const vectors = new Float32Array(rows.length * dims);
    rows.forEach((row, i) => vectors.set(new Float32Array(row.embedding.buffer, row.embedding.byteOffset, dims), i * dims));
    const model = trainIvf(vectors, rows.length, dims, definition.distance);
    this.sql.run(`DELETE FROM ${ivf} WHERE collection_id = ?`, [collection]);
    for (let c = 1; c <= model.lists; c++) {
      this.sql.run(`INSERT INTO ${ivf} (collection_id, cluster, centroid, trained_size) VALUES (?, ?, ?, ?)`, [collection, c, modelBlob(model, c), model.trainedSize]);
    }
    this.models.set(`${definition.name}\u0000${collection}`, model);
    rows.forEach((row, i) => {
      const cluster = nearestCluster(model, definition.distance, vectors, i * dims);
      if (BigInt(row.cluster) === BigInt(cluster)) return;
      this.sql.run(`DELETE FROM ${knn} WHERE rowid = ?`, [BigInt(row.rowid)]);
      this.sql.run(`INSERT INTO ${knn} (rowid, collection_id, cluster, embedding, content_id, source, chunk_index) VALUES (?, ?, ?, ?, ?, ?, ?)`, [
        BigInt(row.rowid),
        collection,
        BigInt(cluster),
        row.embedding,
        row.content_id,
        row.source,
        BigInt(row.chunk_index),
      ]);
    });
  }
}
