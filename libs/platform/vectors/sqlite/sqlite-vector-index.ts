/**
 * Reads and searches of one embedded index.
 *
 * Dense k-NN goes through sqlite-vec's KNN (`embedding MATCH ? AND k = ?`) on the vec0 table,
 * partitioned by collection, never through a distance scan of a table; except that in a
 * collection with a complete HNSW graph (`sqlite-graphs.ts`: from 5k points) an unfiltered
 * search, and the over-fetch of a residual-only filter, take the graph's nearest (approximate,
 * recall@10 >= 0.95 measured), re-scored like every reported vector score: by
 * `vector-distance.ts` (sqlite-vec's arithmetic, bit for bit) from the point's stored float32
 * vector, so that a score never depends on the path that found the point. The stored vector
 * comes from the graph's in-memory mirror (`vector-mirror.ts`) or a pending write, from the
 * exact KNN's own row (`embedding`), else from one vec0 point read. Every other search is exact:
 * - the filter's top-level conditions on `content_id`, `source` and `chunk_index` are
 *   evaluated by vec0 inside the scan (metadata columns), so such filters are exact at once;
 * - any other condition (metadata, tags, $or, $not …) is a residual that vec0 cannot see. The
 *   strategy is over-fetch, then pre-filter: ask vec0 for max(10 × k, 200) (at most 4096)
 *   nearest points and keep those the residual accepts; if that yields k, or the scope had no
 *   more points, those are exactly the top k among matching points (every matching point
 *   outside the fetched ones is farther than all of them). Otherwise the filter is selective:
 *   the matching rowids are computed on the points table and vec0 runs the KNN restricted to
 *   them (`rowid IN (…)`), which is exact whatever the selectivity. At most two KNN scans.
 *
 * Keyword search is the adapter's own inverted index (`sqlite-keyword.ts`): exact BM25 top k
 * among matching points by block-max MaxScore, each collection with its own statistics.
 *
 * Hybrid search runs both legs, then, for a completing fusion (`weighted_score`), scores the
 * candidates each leg did not list on that leg, by the same engine functions as the legs:
 * the vector score of keyword-only candidates by the same `vector-distance.ts` function from
 * their stored vectors (a searched collection's graph mirror, else a vec0 point lookup,
 * `rowid = ?`), and the BM25 of vector-only candidates from the same postings and
 * per-collection statistics as the leg (`SqliteKeywordSearch.scoresOf`); a candidate holding
 * no query term scores 0. Both legs and the completion work on rowids; the ids (fusion breaks
 * ties by id) are read in one statement for both legs' candidates, and the returned rows in one more.
 */
import type { HybridHit, LegCompletion, HybridQuery, KeywordQuery, LegCandidate, PointHit, PointPayload, SearchScope, StoredPoint, Vector, VectorIndex, VectorIndexDefinition, VectorQuery } from '@lore/platform/vectors/port';
import { assertId, assertLimit, assertScope, assertVector, byScoreThenId, completionNeeded, distinct, fuse, MAX_CANDIDATES, planHybrid } from '@lore/platform/vectors/port';
import { filterSql, splitForKnn, SqlParams } from './sqlite-filter.translator';
import type { KnnPushdown } from './sqlite-filter.translator';
import { queryStems, SqliteKeywordSearch } from './sqlite-keyword';
import type { RowidScore } from './sqlite-keyword';
import { tablesOf, vectorBlob } from './sqlite-vector-schema';
import { distanceFunction } from './vector-distance';
import type { IndexTables, Param } from './sqlite-vector-schema';
import type { SqliteVectorStore } from './sqlite-vector-store.adapter';
import { type FilterNode, compileFilter } from '@lore/platform/kernel';

/** First over-fetch: this many times k, at least OVERFETCH_MIN, at most MAX_CANDIDATES. */
export const OVERFETCH_FACTOR = 10;
export const OVERFETCH_MIN = 200;

interface PointRow {
  readonly rowid: number;
  readonly id: string;
  readonly collection_id: string;
  readonly content_id: string;
  readonly source: string | null;
  readonly chunk_index: number;
  readonly tags: string;
  readonly metadata: string;
  readonly text: string;
}

interface Neighbour {
  readonly rowid: number;
  /** For ordering and cutting to k; every reported score is re-computed by `rescored`. */
  readonly distance: number;
  /** The stored vector when known here (graph mirror, pending write, or read with the KNN row); else `rescored` reads vec0. */
  readonly vector?: Float32Array;
}

const ROW_COLUMNS = 'p.rowid AS rowid, p.id AS id, p.collection_id AS collection_id, p.content_id AS content_id, p.source AS source, p.chunk_index AS chunk_index, p.tags AS tags, p.metadata AS metadata, t.text AS text';

/** The points table `p` with its text `t`. */
const withText = (tables: IndexTables): string => `${tables.points} AS p JOIN ${tables.text} AS t ON t.rowid = p.rowid`;

export class SqliteVectorIndex implements VectorIndex {
  private readonly keyword: SqliteKeywordSearch;

  constructor(
    private readonly store: SqliteVectorStore,
    readonly name: string,
  ) {
    this.keyword = new SqliteKeywordSearch(store, name, (collections, filter, params) => this.scopeSql(collections, filter, params));
  }

  async get(ids: readonly string[], options: { readonly withVector?: boolean } = {}): Promise<StoredPoint[]> {
    this.store.definition(this.name);
    ids.forEach((id) => assertId(id));
    const tables = tablesOf(this.name);
    const rows = this.store.prepare(`SELECT ${ROW_COLUMNS} FROM ${withText(tables)} WHERE p.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(distinct(ids))) as PointRow[];
    const byId = new Map(rows.map((row) => [row.id, row]));
    const out: StoredPoint[] = [];
    for (const id of ids) {
      const row = byId.get(id);
      if (!row) continue;
      const point = toStored(row);
      if (options.withVector) {
        const blob = this.store.prepare(`SELECT embedding FROM ${tables.knn} WHERE rowid = ?`).pluck(true).get(BigInt(row.rowid)) as Buffer;
        out.push({ ...point, vector: Array.from(new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength))) });
      } else {
        out.push(point);
      }
    }
    return out;
  }

  async count(scope: SearchScope): Promise<number> {
    this.store.definition(this.name);
    assertScope(scope);
    const filter = compileFilter(scope.filter);
    if (filter.kind === 'none') return 0;
    const params = new SqlParams();
    const where = this.scopeSql(scope.collections, filter, params);
    return Number(this.store.prepare(`SELECT count(*) FROM ${tablesOf(this.name).points} AS p WHERE ${where}`).pluck(true).get(...params.values));
  }

  async searchVector(query: VectorQuery): Promise<PointHit[]> {
    const definition = this.store.definition(this.name);
    assertScope(query);
    assertLimit(query.limit);
    assertVector(query.vector, definition);
    return this.hits(this.vectorLeg(definition, query.collections, compileFilter(query.filter), query.vector, query.limit), query.limit);
  }

  async searchKeyword(query: KeywordQuery): Promise<PointHit[]> {
    this.store.definition(this.name);
    assertScope(query);
    assertLimit(query.limit);
    return this.hits(this.keyword.top(query.collections, compileFilter(query.filter), queryStems(query.text), query.limit), query.limit);
  }

  async searchHybrid(query: HybridQuery): Promise<HybridHit[]> {
    const definition = this.store.definition(this.name);
    assertScope(query);
    const { fusion, candidates } = planHybrid(query);
    assertVector(query.vector, definition);
    const filter = compileFilter(query.filter);
    const stems = queryStems(query.text);
    const nearest = this.vectorLeg(definition, query.collections, filter, query.vector, candidates);
    const matching = this.keyword.top(query.collections, filter, stems, candidates);
    // Every id the legs need (their ties are ordered by id), in one statement; completion and fusion work on these.
    const ids = this.idsByRowid(tablesOf(this.name), [...nearest.map((n) => n.rowid), ...matching.map((m) => m.rowid)]);
    const vector = listed(nearest, ids, candidates);
    const keyword = listed(matching, ids, candidates);
    const needed = completionNeeded(vector, keyword, fusion);
    const rowidOf = new Map<string, number>();
    for (const [rowid, id] of ids) rowidOf.set(id, rowid);
    const rowidsOf = (wanted: readonly string[]): number[] => wanted.flatMap((id) => rowidOf.get(id) ?? []);
    const completion: LegCompletion = {
      vector: byId(this.vectorScores(definition, query.collections, rowidsOf(needed.vector), query.vector), ids),
      keyword: byId(this.keyword.scoresOf(rowidsOf(needed.keyword), query.collections, stems), ids),
    };
    const fused = fuse(vector, keyword, fusion, query.limit, completion);
    const rows = this.rowsByRowid(rowidsOf(fused.map((f) => f.id)));
    return fused.flatMap((f, i) => {
      const rowid = rowidOf.get(f.id);
      const row = rowid === undefined ? undefined : rows.get(rowid);
      return row ? [{ ...toStored(row), score: f.score, rank: i + 1, legs: { vector: f.vector, keyword: f.keyword } }] : [];
    });
  }

  // ---- legs: candidates by rowid (ids are read once, with the rows or for fusion) ----

  /** The k nearest matching points with their scores, nearest first (ties among equal scores are ordered by id later). */
  private vectorLeg(definition: VectorIndexDefinition, collections: readonly string[], filter: FilterNode, vector: Vector, k: number): RowidScore[] {
    if (filter.kind === 'none') return [];
    const tables = tablesOf(this.name);
    const pushdown = splitForKnn(filter);
    const blob = vectorBlob(vector);
    let neighbours: Neighbour[];
    if (pushdown.residual === null) {
      // Conditions vec0 evaluates (content_id, source, chunk_index) mostly pick one content or a
      // few, where an approximate answer would visibly miss chunks: those searches stay exact.
      neighbours = pushdown.sql.length === 0 ? this.knn(definition, collections, blob, k, pushdown) : this.exactKnn(tables, collections, blob, k, pushdown, undefined, true);
    } else {
      const fetch = Math.min(MAX_CANDIDATES, Math.max(k * OVERFETCH_FACTOR, OVERFETCH_MIN));
      // Residual only: the over-fetch may be approximate (IVF); a selective residual falls through to the exact pass below.
      const nearest = pushdown.sql.length === 0 ? this.knn(definition, collections, blob, fetch, pushdown) : this.exactKnn(tables, collections, blob, fetch, pushdown);
      const accepted = this.accepting(tables, nearest, pushdown.residual);
      neighbours = nearest.filter((n) => accepted.has(n.rowid));
      if (neighbours.length < k && nearest.length === fetch) {
        // Selective: fewer than k matches among the nearest `fetch`. KNN over exactly the matching points.
        const params = new SqlParams();
        const where = this.scopeSql(collections, filter, params);
        const matching = this.store.prepare(`SELECT p.rowid FROM ${tables.points} AS p WHERE ${where}`).pluck(true).all(...params.values) as number[];
        neighbours = matching.length === 0 ? [] : this.exactKnn(tables, collections, blob, k, { sql: [], params: [], residual: null }, matching, true);
      }
    }
    const score = scoreOfDistance(definition);
    const query = new Float32Array(blob.buffer, blob.byteOffset, definition.dimensions);
    return this.rescored(definition, query, neighbours.slice(0, k)).map((n) => ({ rowid: n.rowid, score: score(n.distance) }));
  }

  /**
   * The k nearest: per collection with a complete graph, the graph's k nearest (and the exact
   * nearest among writes it has not taken in yet), or the exact scan of the collection when the
   * graph returns fewer than k; collections without a graph, exactly, in one vec0 KNN.
   */
  private knn(definition: VectorIndexDefinition, collections: readonly string[], blob: Buffer, k: number, pushdown: KnnPushdown): Neighbour[] {
    const tables = tablesOf(this.name);
    const exact: string[] = [];
    const found: Neighbour[] = [];
    const query = new Float32Array(blob.buffer, blob.byteOffset, definition.dimensions);
    for (const collection of collections) {
      const graph = this.store.graphs.ready(this.name, collection);
      const rows = graph ? graph.search(query, k) : [];
      if (graph && rows.length >= k) {
        // The graph's euclidean distance is squared; its root orders like vec0's until re-scored.
        for (const row of rows) {
          const vector = graph.vectorOf(row.rowid);
          if (vector === null) continue;
          found.push({ rowid: row.rowid, distance: definition.distance === 'cosine' ? row.distance : Math.sqrt(row.distance), ...(vector ? { vector } : {}) });
        }
      } else {
        exact.push(collection);
      }
    }
    if (exact.length > 0) found.push(...this.exactKnn(tables, exact, blob, k, pushdown));
    found.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return found.length > k ? found.slice(0, k) : found;
  }

  /**
   * Every neighbour's distance by `vector-distance.ts` (sqlite-vec's arithmetic) from its stored
   * vector, nearest first: the one function every reported vector score goes through, so a score
   * never depends on the path that found the point. Neighbours whose point is gone are dropped.
   */
  private rescored(definition: VectorIndexDefinition, query: Float32Array, neighbours: readonly Neighbour[]): Neighbour[] {
    const distance = distanceFunction(definition.distance);
    const out: Neighbour[] = [];
    for (const n of neighbours) {
      const vector = n.vector ?? this.storedVector(n.rowid);
      if (vector) out.push({ rowid: n.rowid, distance: distance(query, vector) });
    }
    return out.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
  }

  /** A point's stored vector read from vec0 (a point lookup), or null when it is gone. */
  private storedVector(rowid: number): Float32Array | null {
    const blob = this.store.prepare(`SELECT embedding FROM ${tablesOf(this.name).knn} WHERE rowid = ?`).pluck(true).get(BigInt(rowid)) as Buffer | undefined;
    return blob ? new Float32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength)) : null;
  }

  /** vec0 KNN over every point of the collections (SQLite runs the partition `IN` once per value), merged here. */
  private exactKnn(tables: IndexTables, collections: readonly string[], blob: Buffer, k: number, pushdown: KnnPushdown, rowids?: readonly number[], withVectors = false): Neighbour[] {
    const partition = collections.length === 1 ? 'collection_id = ?' : `collection_id IN (${collections.map(() => '?').join(', ')})`;
    const conditions = ['embedding MATCH ?', 'k = ?', partition, ...pushdown.sql];
    const params: Param[] = [blob, BigInt(k), ...collections, ...pushdown.params];
    if (rowids) {
      conditions.push('rowid IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(rowids));
    }
    const columns = withVectors ? 'rowid, distance, embedding' : 'rowid, distance';
    const rows = this.store.prepare(`SELECT ${columns} FROM ${tables.knn} WHERE ${conditions.join(' AND ')}`).all(...params) as Array<{ rowid: number; distance: number; embedding?: Buffer }>;
    rows.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return (rows.length > k ? rows.slice(0, k) : rows).map(({ rowid, distance, embedding }) =>
      embedding ? { rowid, distance, vector: new Float32Array(embedding.buffer.slice(embedding.byteOffset, embedding.byteOffset + embedding.byteLength)) } : { rowid, distance },
    );
  }

  /** The rowids among `neighbours` that satisfy the residual filter. */
  private accepting(tables: IndexTables, neighbours: readonly Neighbour[], residual: FilterNode): Set<number> {
    if (neighbours.length === 0) return new Set();
    const params = new SqlParams();
    params.bind(JSON.stringify(neighbours.map((n) => n.rowid)));
    const where = filterSql(residual, params);
    const rows = this.store.prepare(`SELECT p.rowid FROM ${tables.points} AS p WHERE p.rowid IN (SELECT value FROM json_each(?)) AND ${where}`).pluck(true).all(...params.values) as number[];
    return new Set(rows);
  }

  // ---- completion: one leg's scores of given points (see the header) ----

  /**
   * The vector leg's score of each of `rowids` (candidates of the searched collections), from
   * the stored vector a collection's graph holds, else a vec0 point read; missing points are left out.
   */
  private vectorScores(definition: VectorIndexDefinition, collections: readonly string[], rowids: readonly number[], vector: Vector): Map<number, number> {
    const out = new Map<number, number>();
    if (rowids.length === 0) return out;
    const query = Float32Array.from(vector);
    const distance = distanceFunction(definition.distance);
    const score = scoreOfDistance(definition);
    const graphs = collections.flatMap((collection) => this.store.graphs.ready(this.name, collection) ?? []);
    for (const rowid of rowids) {
      let stored: Float32Array | null | undefined;
      // null from one graph: not (or no longer) a point of that collection; another may hold it.
      for (const graph of graphs) {
        stored = graph.vectorOf(rowid);
        if (stored) break;
      }
      stored = stored || this.storedVector(rowid);
      if (stored) out.set(rowid, score(distance(query, stored)));
    }
    return out;
  }

  // ---- rows ----

  private scopeSql(collections: readonly string[], filter: FilterNode, params: SqlParams): string {
    const scope = `p.collection_id IN (${params.list(collections)})`;
    return filter.kind === 'all' ? scope : `${scope} AND ${filterSql(filter, params)}`;
  }

  private idsByRowid(tables: IndexTables, rowids: readonly number[]): Map<number, string> {
    if (rowids.length === 0) return new Map();
    const rows = this.store.prepare(`SELECT rowid, id FROM ${tables.points} WHERE rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rowids)) as Array<{ rowid: number; id: string }>;
    return new Map(rows.map((row) => [row.rowid, row.id]));
  }

  private rowsByRowid(rowids: readonly number[]): Map<number, PointRow> {
    if (rowids.length === 0) return new Map();
    const rows = this.store.prepare(`SELECT ${ROW_COLUMNS} FROM ${withText(tablesOf(this.name))} WHERE p.rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rowids)) as PointRow[];
    return new Map(rows.map((row) => [row.rowid, row]));
  }

  /** A single leg's hits: its candidates' rows (one statement), ordered by score then id, the first `limit`. */
  private hits(leg: readonly RowidScore[], limit: number): PointHit[] {
    const rows = this.rowsByRowid(leg.map((c) => c.rowid));
    return leg
      .flatMap((c) => {
        const row = rows.get(c.rowid);
        return row ? [{ row, id: row.id, score: c.score }] : [];
      })
      .sort(byScoreThenId)
      .slice(0, limit)
      .map((c, i) => ({ ...toStored(c.row), score: c.score, rank: i + 1 }));
  }
}

/** A leg's list as fusion takes it: string ids, best first (score, then id), the first `k`. */
function listed(leg: readonly RowidScore[], ids: ReadonlyMap<number, string>, k: number): LegCandidate[] {
  return leg
    .flatMap((c) => {
      const id = ids.get(c.rowid);
      return id === undefined ? [] : [{ id, score: c.score }];
    })
    .sort(byScoreThenId)
    .slice(0, k);
}

/** Scores by rowid → by string id. */
function byId(scores: ReadonlyMap<number, number>, ids: ReadonlyMap<number, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [rowid, score] of scores) {
    const id = ids.get(rowid);
    if (id !== undefined) out.set(id, score);
  }
  return out;
}

/** The vector leg's score of a vec0 distance: cosine similarity, or minus the L2 distance. */
function scoreOfDistance(definition: VectorIndexDefinition): (distance: number) => number {
  return definition.distance === 'cosine' ? (d) => 1 - d : (d) => -d;
}

function toStored(row: PointRow): StoredPoint {
  const payload: PointPayload = {
    content_id: row.content_id,
    chunk_index: row.chunk_index,
    source: row.source,
    tags: JSON.parse(row.tags) as string[],
    metadata: JSON.parse(row.metadata) as PointPayload['metadata'],
  };
  return { id: row.id, collectionId: row.collection_id, text: row.text, payload };
}
