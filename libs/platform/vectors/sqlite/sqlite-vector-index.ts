/**
 * Reads and searches of one embedded index.
 *
 * Dense k-NN always goes through sqlite-vec's KNN (`embedding MATCH ? AND k = ?`) on the
 * vec0 table, partitioned by collection, never through a distance scan of a table:
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
 * Keyword search is FTS5 `MATCH` on the stemmed index, joined to the points table for scope
 * and filter, ranked by `bm25()`: exact BM25 top k among matching points.
 *
 * Hybrid search runs both legs, then, for a completing fusion (`weighted_score`), scores the
 * candidates each leg did not list on that leg, by the same engine functions as the legs:
 * the vector score of keyword-only candidates by vec0 point lookups (`rowid = ?`, at most
 * `candidates` of them) with sqlite-vec's `vec_distance_cosine` / `vec_distance_l2` (the KNN's
 * own distance function, so a completed score equals the one the vector leg would report),
 * and the BM25 of vector-only candidates by one FTS5 query, the keyword leg's MATCH restricted
 * to their rowids (`bm25()`'s statistics are the whole table's, as in the leg); a candidate
 * the MATCH does not find scores 0.
 */
import type { FilterNode, HybridHit, LegCompletion, HybridQuery, KeywordQuery, LegCandidate, PointHit, PointPayload, SearchScope, StoredPoint, Vector, VectorIndex, VectorIndexDefinition, VectorQuery } from '@lore/platform/vectors/port';
import { assertId, assertLimit, assertScope, assertVector, byScoreThenId, compileFilter, completionNeeded, distinct, fuse, MAX_CANDIDATES, planHybrid } from '@lore/platform/vectors/port';
import { filterSql, splitForKnn, SqlParams } from './sqlite-filter.translator';
import type { KnnPushdown } from './sqlite-filter.translator';
import { ftsQuery } from './sqlite-fts-query';
import { tablesOf, vectorBlob } from './sqlite-vector-schema';
import type { IndexTables, Param } from './sqlite-vector-schema';
import type { SqliteVectorStore } from './sqlite-vector-store.adapter';

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
  readonly distance: number;
}

const ROW_COLUMNS = 'p.rowid AS rowid, p.id AS id, p.collection_id AS collection_id, p.content_id AS content_id, p.source AS source, p.chunk_index AS chunk_index, p.tags AS tags, p.metadata AS metadata, t.text AS text';

/** The points table `p` with its text `t`. */
const withText = (tables: IndexTables): string => `${tables.points} AS p JOIN ${tables.text} AS t ON t.rowid = p.rowid`;

export class SqliteVectorIndex implements VectorIndex {
  constructor(
    private readonly store: SqliteVectorStore,
    readonly name: string,
  ) {}

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
    const leg = this.vectorLeg(definition, query.collections, compileFilter(query.filter), query.vector, query.limit);
    return this.hits(leg);
  }

  async searchKeyword(query: KeywordQuery): Promise<PointHit[]> {
    this.store.definition(this.name);
    assertScope(query);
    assertLimit(query.limit);
    return this.hits(this.keywordLeg(query.collections, compileFilter(query.filter), query.text, query.limit));
  }

  async searchHybrid(query: HybridQuery): Promise<HybridHit[]> {
    const definition = this.store.definition(this.name);
    assertScope(query);
    const { fusion, candidates } = planHybrid(query);
    assertVector(query.vector, definition);
    const filter = compileFilter(query.filter);
    const vector = this.vectorLeg(definition, query.collections, filter, query.vector, candidates);
    const keyword = this.keywordLeg(query.collections, filter, query.text, candidates);
    const needed = completionNeeded(vector, keyword, fusion);
    const completion: LegCompletion = {
      vector: this.vectorScores(definition, needed.vector, query.vector),
      keyword: this.keywordScores(needed.keyword, query.text),
    };
    const fused = fuse(vector, keyword, fusion, query.limit, completion);
    const rows = this.rowsById(fused.map((f) => f.id));
    return fused.flatMap((f, i) => {
      const row = rows.get(f.id);
      return row ? [{ ...toStored(row), score: f.score, rank: i + 1, legs: { vector: f.vector, keyword: f.keyword } }] : [];
    });
  }

  // ---- legs: candidates best first, with string ids ----

  private vectorLeg(definition: VectorIndexDefinition, collections: readonly string[], filter: FilterNode, vector: Vector, k: number): LegCandidate[] {
    if (filter.kind === 'none') return [];
    const tables = tablesOf(this.name);
    const pushdown = splitForKnn(filter);
    const blob = vectorBlob(vector);
    let neighbours: Neighbour[];
    if (pushdown.residual === null) {
      neighbours = this.knn(tables, collections, blob, k, pushdown);
    } else {
      const fetch = Math.min(MAX_CANDIDATES, Math.max(k * OVERFETCH_FACTOR, OVERFETCH_MIN));
      const nearest = this.knn(tables, collections, blob, fetch, pushdown);
      const accepted = this.accepting(tables, nearest, pushdown.residual);
      neighbours = nearest.filter((n) => accepted.has(n.rowid));
      if (neighbours.length < k && nearest.length === fetch) {
        // Selective: fewer than k matches among the nearest `fetch`. KNN over exactly the matching points.
        const params = new SqlParams();
        const where = this.scopeSql(collections, filter, params);
        const matching = this.store.prepare(`SELECT p.rowid FROM ${tables.points} AS p WHERE ${where}`).pluck(true).all(...params.values) as number[];
        neighbours = matching.length === 0 ? [] : this.knn(tables, collections, blob, k, { sql: [], params: [], residual: null }, matching);
      }
    }
    const ids = this.idsByRowid(tables, neighbours.slice(0, k).map((n) => n.rowid));
    const score = definition.distance === 'cosine' ? (d: number): number => 1 - d : (d: number): number => -d;
    return neighbours
      .slice(0, k)
      .flatMap((n) => {
        const id = ids.get(n.rowid);
        return id === undefined ? [] : [{ id, score: score(n.distance) }];
      })
      .sort(byScoreThenId);
  }

  /** vec0 KNN: the k nearest in each collection (SQLite runs the partition `IN` once per value), merged here. */
  private knn(tables: IndexTables, collections: readonly string[], blob: Buffer, k: number, pushdown: KnnPushdown, rowids?: readonly number[]): Neighbour[] {
    const partition = collections.length === 1 ? 'collection_id = ?' : `collection_id IN (${collections.map(() => '?').join(', ')})`;
    const conditions = ['embedding MATCH ?', 'k = ?', partition, ...pushdown.sql];
    const params: Param[] = [blob, BigInt(k), ...collections, ...pushdown.params];
    if (rowids) {
      conditions.push('rowid IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(rowids));
    }
    const rows = this.store.prepare(`SELECT rowid, distance FROM ${tables.knn} WHERE ${conditions.join(' AND ')}`).all(...params) as Neighbour[];
    rows.sort((a, b) => a.distance - b.distance || a.rowid - b.rowid);
    return rows.length > k ? rows.slice(0, k) : rows;
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

  private keywordLeg(collections: readonly string[], filter: FilterNode, text: string, k: number): LegCandidate[] {
    const match = ftsQuery(text);
    if (match === null || filter.kind === 'none') return [];
    const { points, fts } = tablesOf(this.name);
    const params = new SqlParams();
    params.bind(match);
    const where = this.scopeSql(collections, filter, params);
    params.bind(BigInt(k));
    const rows = this.store
      .prepare(`SELECT p.id AS id, bm25(${fts}) AS bm25 FROM ${fts} JOIN ${points} AS p ON p.rowid = ${fts}.rowid WHERE ${fts} MATCH ? AND ${where} ORDER BY bm25, p.id LIMIT ?`)
      .all(...params.values) as Array<{ id: string; bm25: number }>;
    // FTS5's bm25() is negated so that ORDER BY ascending puts the best first; the port's scores grow with relevance.
    return rows.map((row) => ({ id: row.id, score: -row.bm25 }));
  }

  // ---- completion: one leg's scores of given points (see the header) ----

  /** The vector leg's score of each of `ids` (point lookups on vec0, never a scan); missing points are left out. */
  private vectorScores(definition: VectorIndexDefinition, ids: readonly string[], vector: Vector): Map<string, number> {
    const out = new Map<string, number>();
    if (ids.length === 0) return out;
    const tables = tablesOf(this.name);
    const blob = vectorBlob(vector);
    const cosine = definition.distance === 'cosine';
    const lookup = this.store.prepare(`SELECT ${cosine ? 'vec_distance_cosine' : 'vec_distance_l2'}(embedding, ?) FROM ${tables.knn} WHERE rowid = ?`).pluck(true);
    for (const [rowid, id] of this.rowidsById(tables, ids)) {
      const distance = lookup.get(blob, BigInt(rowid)) as number | undefined;
      if (typeof distance === 'number') out.set(id, cosine ? 1 - distance : -distance);
    }
    return out;
  }

  /** The keyword leg's BM25 of each of `ids` that matches `text` (one FTS5 query restricted to their rowids); the others score 0 and are left out. */
  private keywordScores(ids: readonly string[], text: string): Map<string, number> {
    const out = new Map<string, number>();
    const match = ftsQuery(text);
    if (ids.length === 0 || match === null) return out;
    const { points, fts } = tablesOf(this.name);
    // `+rowid` keeps the candidate list away from FTS5: handed to it, FTS5 looks each rowid up
    // and recomputes the query's IDF per lookup (about 1.7 ms each for a common term at 100k
    // rows). Scanned as one MATCH and filtered after, it costs what the keyword leg costs.
    const rows = this.store
      .prepare(
        `SELECT p.id AS id, bm25(${fts}) AS bm25 FROM ${fts} JOIN ${points} AS p ON p.rowid = ${fts}.rowid ` +
          `WHERE ${fts} MATCH ? AND +${fts}.rowid IN (SELECT rowid FROM ${points} WHERE id IN (SELECT value FROM json_each(?)))`,
      )
      .all(match, JSON.stringify(ids)) as Array<{ id: string; bm25: number }>;
    for (const row of rows) out.set(row.id, -row.bm25);
    return out;
  }

  // ---- rows ----

  private rowidsById(tables: IndexTables, ids: readonly string[]): Map<number, string> {
    const rows = this.store.prepare(`SELECT rowid, id FROM ${tables.points} WHERE id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as Array<{ rowid: number; id: string }>;
    return new Map(rows.map((row) => [row.rowid, row.id]));
  }

  private scopeSql(collections: readonly string[], filter: FilterNode, params: SqlParams): string {
    const scope = `p.collection_id IN (${params.list(collections)})`;
    return filter.kind === 'all' ? scope : `${scope} AND ${filterSql(filter, params)}`;
  }

  private idsByRowid(tables: IndexTables, rowids: readonly number[]): Map<number, string> {
    if (rowids.length === 0) return new Map();
    const rows = this.store.prepare(`SELECT rowid, id FROM ${tables.points} WHERE rowid IN (SELECT value FROM json_each(?))`).all(JSON.stringify(rowids)) as Array<{ rowid: number; id: string }>;
    return new Map(rows.map((row) => [row.rowid, row.id]));
  }

  private rowsById(ids: readonly string[]): Map<string, PointRow> {
    if (ids.length === 0) return new Map();
    const rows = this.store.prepare(`SELECT ${ROW_COLUMNS} FROM ${withText(tablesOf(this.name))} WHERE p.id IN (SELECT value FROM json_each(?))`).all(JSON.stringify(ids)) as PointRow[];
    return new Map(rows.map((row) => [row.id, row]));
  }

  private hits(leg: readonly LegCandidate[]): PointHit[] {
    const rows = this.rowsById(leg.map((c) => c.id));
    return leg.flatMap((candidate, i) => {
      const row = rows.get(candidate.id);
      return row ? [{ ...toStored(row), score: candidate.score, rank: i + 1 }] : [];
    });
  }
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
