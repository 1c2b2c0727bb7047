/**
 * The tables of one vector index in the embedded store. For index `x`:
 *
 * - `vec_points_x`: one row per point: the string id, collection and payload (fixed fields as
 *   columns, tags and metadata as JSON): what filters read, kept narrow so that scanning it
 *   is cheap. Its integer rowid keys the other tables.
 * - `vec_text_x`: the text, by the same rowid.
 * - `vec_knn_x`: a sqlite-vec `vec0` table: the float32 embedding with `collection_id` as the
 *   PARTITION KEY (a KNN scan reads only the searched collections' chunks) and `content_id`,
 *   `source`, `chunk_index` as metadata columns, which vec0 filters inside the scan. It is the
 *   exact search, and the source the HNSW graphs (`sqlite-graphs.ts`) are built from. Tables
 *   made by the earlier IVF layer have a second partition key, `cluster` (`hasClusterColumn`):
 *   new points get 0 there; a rebuild (`reset`) recreates the table without it.
 * - `vec_graphs_x` / `vec_changes_x`: which collections have an HNSW graph and the change-log
 *   position its snapshot covers; the log of writes to those collections since (`sqlite-graphs.ts`).
 * - `vec_kwdocs_x`, `vec_kwterms_x`: the keyword index's durable side (`keyword-index.ts`):
 *   per point its term ids and frequencies, and the vocabulary. Files written before it held
 *   an FTS5 table `vec_fts_x` instead, which the store replaces on open (`migrateKeywords`).
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
  /** The earlier IVF layer's centroids: only ever dropped. */
  readonly ivf: string;
  readonly graphs: string;
  readonly changes: string;
  readonly kwDocs: string;
  readonly kwTerms: string;
  /** The FTS5 table of files written before the keyword index (dropped on open). */
  readonly legacyFts: string;
}

export function tablesOf(name: string): IndexTables {
  assertIndexName(name);
  return {
    points: `vec_points_${name}`,
    text: `vec_text_${name}`,
    knn: `vec_knn_${name}`,
    ivf: `vec_ivf_${name}`,
    graphs: `vec_graphs_${name}`,
    changes: `vec_changes_${name}`,
    kwDocs: `vec_kwdocs_${name}`,
    kwTerms: `vec_kwterms_${name}`,
    legacyFts: `vec_fts_${name}`,
  };
}

const METRIC: Record<Distance, string> = { cosine: 'cosine', euclidean: 'l2' };

export const STORE_DDL = [
  `CREATE TABLE IF NOT EXISTS ${REGISTRY} (name TEXT PRIMARY KEY, dimensions INTEGER NOT NULL, distance TEXT NOT NULL) STRICT`,
  `CREATE TABLE IF NOT EXISTS ${CHECKPOINTS} (name TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT`,
];

/**
 * vec0 rows per chunk. The default (1024) suits one big partition; IVF lists hold a few hundred
 * vectors each, and a chunk is allocated whole per partition, so smaller chunks keep the file
 * and the bytes a probe reads small. See ../README.md for the measurement.
 */
export const KNN_CHUNK_SIZE = 128;

/** Whether the index's vec0 table has the earlier IVF layer's `cluster` partition key. */
export function hasClusterColumn(knnSql: string | undefined): boolean {
  return knnSql !== undefined && /\bcluster INTEGER PARTITION KEY\b/.test(knnSql);
}

export function createIndexSql(definition: VectorIndexDefinition): string[] {
  const { points, text, knn } = tablesOf(definition.name);
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
      embedding float[${definition.dimensions}] distance_metric=${METRIC[definition.distance]},
      content_id TEXT,
      source TEXT,
      chunk_index INTEGER,
      chunk_size=${KNN_CHUNK_SIZE}
    )`,
    ...createKeywordSql(definition.name),
    ...graphTablesSql(definition.name),
  ];
}

/** The keyword index's tables (also created on open for files written before them). */
export function createKeywordSql(name: string): string[] {
  const { kwDocs, kwTerms } = tablesOf(name);
  return [`CREATE TABLE ${kwDocs} (rowid INTEGER PRIMARY KEY, terms BLOB NOT NULL) STRICT`, `CREATE TABLE ${kwTerms} (id INTEGER PRIMARY KEY, term TEXT NOT NULL) STRICT`];
}

/** The graphs' registry and change log (created here for new indexes, on first need for older ones). */
export function graphTablesSql(name: string): string[] {
  const { graphs, changes } = tablesOf(name);
  return [
    `CREATE TABLE IF NOT EXISTS ${graphs} (collection_id TEXT PRIMARY KEY, covered_seq INTEGER NOT NULL, file TEXT) STRICT`,
    // AUTOINCREMENT: a position is never reused after the log is trimmed, so a snapshot's position stays a true bound.
    `CREATE TABLE IF NOT EXISTS ${changes} (seq INTEGER PRIMARY KEY AUTOINCREMENT, collection_id TEXT NOT NULL, rowid INTEGER NOT NULL)`,
  ];
}

export function dropIndexSql(name: string): string[] {
  const { points, text, knn, ivf, graphs, changes, kwDocs, kwTerms, legacyFts } = tablesOf(name);
  return [changes, graphs, ivf, kwDocs, kwTerms, legacyFts, knn, text, points].map((table) => `DROP TABLE IF EXISTS ${table}`);
}
