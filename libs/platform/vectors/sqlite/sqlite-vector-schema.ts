/**
 * The tables of one vector index in the embedded store. For index `x`:
 *
 * - `vec_points_x`: one row per point: the string id, collection and payload (fixed fields as
 *   columns, tags and metadata as JSON): what filters read, kept narrow so that scanning it
 *   is cheap. Its integer rowid keys the other tables.
 * - `vec_text_x`: the text, by the same rowid.
 * - `vec_knn_x`: a sqlite-vec `vec0` table: the float32 embedding with `collection_id` as the
 *   PARTITION KEY (a KNN scan reads only the searched collections' chunks) and `content_id`,
 *   `source`, `chunk_index` as metadata columns, which vec0 filters inside the scan; and
 *   `cluster`, a second partition key: the point's IVF list within its collection (0 until the
 *   collection has centroids; `sqlite-ivf.ts`). Indexes created before the IVF layer have no
 *   `cluster` column and are searched exactly, as before (`hasIvfLayout`); a rebuild
 *   (`reset`) recreates them with it.
 * - `vec_ivf_x`: the centroids of each collection that has them.
 * - `vec_fts_x`: an FTS5 index of the text, external content (the text is stored once, in
 *   `vec_text_x`), tokenizer `porter unicode61`, with FTS5's `secure-delete` on so that a
 *   deleted row's terms leave the index instead of lingering behind delete markers.
 *
 * Index names are validated by the port (`[a-z0-9][a-z0-9_]*`) before they reach this text.
 */
import type { Distance, Vector, VectorIndexDefinition } from '@lore/platform/vectors/port';
import { assertIndexName } from '@lore/platform/vectors/port';
import type { SqlValue } from './sqlite-filter.translator';

/** What statements bind: filter values, and vectors as little-endian float32 blobs (vec0's format). */
export type Param = SqlValue | Buffer;

export function vectorBlob(vector: Vector): Buffer {
  const floats = vector instanceof Float32Array ? vector : Float32Array.from(vector);
  return Buffer.from(floats.buffer, floats.byteOffset, floats.byteLength);
}

export const REGISTRY = 'lore_vector_indexes';
export const CHECKPOINTS = 'lore_checkpoints';

export interface IndexTables {
  readonly points: string;
  readonly text: string;
  readonly knn: string;
  readonly fts: string;
  readonly ivf: string;
}

export function tablesOf(name: string): IndexTables {
  assertIndexName(name);
  return { points: `vec_points_${name}`, text: `vec_text_${name}`, knn: `vec_knn_${name}`, fts: `vec_fts_${name}`, ivf: `vec_ivf_${name}` };
}

const METRIC: Record<Distance, string> = { cosine: 'cosine', euclidean: 'l2' };

export const STORE_DDL = [
  `CREATE TABLE IF NOT EXISTS ${REGISTRY} (name TEXT PRIMARY KEY, dimensions INTEGER NOT NULL, distance TEXT NOT NULL) STRICT`,
  `CREATE TABLE IF NOT EXISTS ${CHECKPOINTS} (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`,
];

/** Statements creating the three tables of an index (not the registry row). */
/**
 * vec0 rows per chunk. The default (1024) suits one big partition; IVF lists hold a few hundred
 * vectors each, and a chunk is allocated whole per partition, so smaller chunks keep the file
 * and the bytes a probe reads small. See ../README.md for the measurement.
 */
export const KNN_CHUNK_SIZE = 128;

/** Whether the index's vec0 table has the IVF `cluster` partition key (created by this version). */
export function hasIvfLayout(knnSql: string | undefined): boolean {
  return knnSql !== undefined && /\bcluster INTEGER PARTITION KEY\b/.test(knnSql);
}

export function createIndexSql(definition: VectorIndexDefinition): string[] {
  const { points, text, knn, fts, ivf } = tablesOf(definition.name);
  return [
    `CREATE TABLE ${points} (
      rowid INTEGER PRIMARY KEY,
      id TEXT NOT NULL UNIQUE,
      collection_id TEXT NOT NULL,
      content_id TEXT NOT NULL,
      source TEXT,
      chunk_index INTEGER NOT NULL,
      tags TEXT NOT NULL,
      metadata TEXT NOT NULL
    ) STRICT`,
    `CREATE TABLE ${text} (rowid INTEGER PRIMARY KEY, text TEXT NOT NULL) STRICT`,
    `CREATE INDEX ${points}_scope ON ${points} (collection_id, content_id)`,
    `CREATE VIRTUAL TABLE ${knn} USING vec0(
      collection_id TEXT PARTITION KEY,
      cluster INTEGER PARTITION KEY,
      embedding float[${definition.dimensions}] distance_metric=${METRIC[definition.distance]},
      content_id TEXT,
      source TEXT,
      chunk_index INTEGER,
      chunk_size=${KNN_CHUNK_SIZE}
    )`,
    `CREATE TABLE ${ivf} (collection_id TEXT NOT NULL, cluster INTEGER NOT NULL, centroid BLOB NOT NULL, trained_size INTEGER NOT NULL, PRIMARY KEY (collection_id, cluster)) STRICT`,
    `CREATE VIRTUAL TABLE ${fts} USING fts5(text, content='${text}', content_rowid='rowid', tokenize='porter unicode61')`,
    `INSERT INTO ${fts} (${fts}, rank) VALUES ('secure-delete', 1)`,
  ];
}

export function dropIndexSql(name: string): string[] {
  const { points, text, knn, fts, ivf } = tablesOf(name);
  return [`DROP TABLE IF EXISTS ${ivf}`, `DROP TABLE IF EXISTS ${fts}`, `DROP TABLE IF EXISTS ${knn}`, `DROP TABLE IF EXISTS ${text}`, `DROP TABLE IF EXISTS ${points}`];
}
