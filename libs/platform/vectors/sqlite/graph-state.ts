/** What `SqliteGraphs` and its snapshots share: one collection's graph state and the SQL it reads points with. */
import type Database from 'better-sqlite3';
import type { VectorIndexDefinition } from '@lore/platform/vectors/port';
import type { HnswGraph } from './hnsw-graph';
import { tablesOf } from './sqlite-vector-schema';
import type { Param } from './sqlite-vector-schema';

export interface GraphSql {
  readonly db: Database.Database;
  prepare(sql: string): Database.Statement<Param[]>;
  run(sql: string, params: readonly Param[]): Database.RunResult;
  definition(name: string): VectorIndexDefinition;
}

export type GraphStatus = 'loading' | 'replaying' | 'building' | 'ready';

export interface CollectionGraph {
  readonly index: string;
  readonly collection: string;
  status: GraphStatus;
  graph: HnswGraph | null;
  /** Building: last rowid read; replaying: last log position read. */
  cursor: number;
  /** Highest log position queued on the graph. */
  lastSeq: number;
  changesSinceSave: number;
  lastChangeAt: number;
  lastSaveAt: number;
}

export const graphKey = (index: string, collection: string): string => `${index}\u0000${collection}`;

/** The point's stored vector if it (still) belongs to the graph's collection, else null. */
export function storedVectorOf(sql: GraphSql, state: CollectionGraph, rowid: number): Float32Array | null {
  const { points, knn } = tablesOf(state.index);
  const collection = sql.prepare(`SELECT collection_id FROM ${points} WHERE rowid = ?`).pluck(true).get(rowid);
  if (collection !== state.collection) return null;
  const blob = sql.prepare(`SELECT embedding FROM ${knn} WHERE rowid = ?`).pluck(true).get(BigInt(rowid)) as Buffer | undefined;
  if (!blob) return null;
  return new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength));
}

/**
 * The next `page` rowids of the collection's points after `after`, in rowid order. `+collection_id`
 * keeps SQLite on the rowid range: through the (collection_id, content_id) index it would sort the
 * whole collection for every page (~27 ms a page at 100k points, quadratic over a build).
 */
export function pointsAfter(sql: GraphSql, state: CollectionGraph, after: number, page: number): number[] {
  return sql.prepare(`SELECT rowid FROM ${tablesOf(state.index).points} WHERE +collection_id = ? AND rowid > ? ORDER BY rowid LIMIT ${page}`).pluck(true).all(state.collection, after) as number[];
}

/** The collection's points, counted up to `atMost` (a write to a big collection must not count it whole). */
export function countPoints(sql: GraphSql, index: string, collection: string, atMost: number): number {
  const limit = Number.isFinite(atMost) ? ` LIMIT ${Math.floor(atMost)}` : '';
  return Number(sql.prepare(`SELECT count(*) FROM (SELECT 1 FROM ${tablesOf(index).points} WHERE collection_id = ?${limit})`).pluck(true).get(collection));
}
