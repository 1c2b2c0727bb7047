/**
 * Reads and searches of one Qdrant-backed index, through the Query API.
 *
 * - Vector: `query` on the dense vector with the scoped filter; Qdrant applies payload
 *   filters during the search (exact on small segments, filterable HNSW above them).
 * - Keyword: `query` on the `bm25` sparse vector (1 per distinct query term; Qdrant adds IDF).
 * - Hybrid: both legs in ONE `queryBatch` request, same filter, `candidates` deep, without
 *   payloads; then the port's `fuse` in TypeScript, then one `retrieve` of the final hits'
 *   payloads. Not Qdrant's server-side fusion (`prefetch` + `rrf`/`dbsf`): that returns only
 *   the fused score, while Lore reports each leg's score and rank, supports relative-score
 *   fusion, and must rank exactly as the embedded adapter does for the same legs.
 *   For a completing fusion (`weighted_score`, the default), a second `queryBatch` scores the
 *   candidates each leg did not list on that leg: the same dense / sparse query, restricted by
 *   a `has_id` filter to those points (plus the scope filter), `limit` = their number, dense
 *   search `exact` (a brute-force score of at most `candidates` points, not an HNSW guess);
 *   a point absent from the sparse answer does not match the text and scores 0.
 */
import type { Schemas } from '@qdrant/js-client-rest';
import type { HybridHit, HybridQuery, LegCompletion, KeywordQuery, LegCandidate, PointHit, SearchScope, StoredPoint, VectorIndex, VectorIndexDefinition, VectorQuery } from '@lore/platform/vectors/port';
import { assertId, assertLimit, assertScope, assertVector, byScoreThenId, completionNeeded, distinct, fuse, planHybrid } from '@lore/platform/vectors/port';
import type { QdrantFilter } from './qdrant-filter.translator';
import { scopedFilter } from './qdrant-filter.translator';
import { pointUuid } from './qdrant-point-id';
import { queryVector } from './sparse-bm25';
import { DENSE, SPARSE, toStored } from './qdrant-points';
import type { QdrantVectorStore } from './qdrant-vector-store.adapter';
import { compileFilter } from '@lore/platform/kernel';

type QueryRequest = Schemas['QueryRequest'];

export class QdrantVectorIndex implements VectorIndex {
  constructor(
    private readonly store: QdrantVectorStore,
    readonly name: string,
  ) {}

  private get collection(): string {
    return this.store.collectionOf(this.name);
  }

  async get(ids: readonly string[], options: { readonly withVector?: boolean } = {}): Promise<StoredPoint[]> {
    await this.store.definition(this.name);
    ids.forEach((id) => assertId(id));
    if (ids.length === 0) return [];
    const records = await this.store.client.retrieve(this.collection, { ids: distinct(ids).map(pointUuid), with_payload: true, with_vector: options.withVector ? [DENSE] : false });
    const byId = new Map<string, StoredPoint>();
    for (const record of records) {
      const point = toStored(record.payload);
      if (!point) continue;
      const vectors = record.vector as Record<string, unknown> | null | undefined;
      const dense = vectors?.[DENSE];
      byId.set(point.id, options.withVector && Array.isArray(dense) ? { ...point, vector: dense as number[] } : point);
    }
    return ids.flatMap((id) => {
      const point = byId.get(id);
      return point ? [point] : [];
    });
  }

  async count(scope: SearchScope): Promise<number> {
    await this.store.definition(this.name);
    assertScope(scope);
    const filter = scopedFilter(scope.collections, compileFilter(scope.filter));
    if (filter === null) return 0;
    return (await this.store.client.count(this.collection, { filter, exact: true })).count;
  }

  async searchVector(query: VectorQuery): Promise<PointHit[]> {
    const definition = await this.store.definition(this.name);
    assertScope(query);
    assertLimit(query.limit);
    assertVector(query.vector, definition);
    const filter = scopedFilter(query.collections, compileFilter(query.filter));
    if (filter === null) return [];
    const response = await this.store.client.query(this.collection, denseRequest(query.vector, filter, query.limit, true));
    return hits(legOf(response, definition, 'vector'), response);
  }

  async searchKeyword(query: KeywordQuery): Promise<PointHit[]> {
    const definition = await this.store.definition(this.name);
    assertScope(query);
    assertLimit(query.limit);
    const filter = scopedFilter(query.collections, compileFilter(query.filter));
    const sparse = queryVector(query.text);
    if (filter === null || sparse === null) return [];
    const response = await this.store.client.query(this.collection, sparseRequest(sparse, filter, query.limit, true));
    return hits(legOf(response, definition, 'keyword'), response);
  }

  async searchHybrid(query: HybridQuery): Promise<HybridHit[]> {
    const definition = await this.store.definition(this.name);
    assertScope(query);
    const { fusion, candidates } = planHybrid(query);
    assertVector(query.vector, definition);
    const filter = scopedFilter(query.collections, compileFilter(query.filter));
    if (filter === null) return [];
    const sparse = queryVector(query.text);
    const searches = [denseRequest(query.vector, filter, candidates, false)];
    if (sparse) searches.push(sparseRequest(sparse, filter, candidates, false));
    const [dense, keyword] = await this.store.client.queryBatch(this.collection, { searches });
    const vectorLeg = legOf(dense, definition, 'vector');
    const keywordLeg = legOf(keyword, definition, 'keyword');
    const completion = await this.complete(definition, completionNeeded(vectorLeg, keywordLeg, fusion), query.vector, sparse, filter);
    const fused = fuse(vectorLeg, keywordLeg, fusion, query.limit, completion);
    if (fused.length === 0) return [];
    const records = await this.store.client.retrieve(this.collection, { ids: fused.map((f) => pointUuid(f.id)), with_payload: true });
    const byId = new Map<string, StoredPoint>();
    for (const record of records) {
      const point = toStored(record.payload);
      if (point) byId.set(point.id, point);
    }
    // A point deleted between the two requests is left out rather than returned half-known.
    return fused.flatMap((f, i) => {
      const point = byId.get(f.id);
      return point ? [{ ...point, score: f.score, rank: i + 1, legs: { vector: f.vector, keyword: f.keyword } }] : [];
    });
  }

  /** Each leg's scores of the candidates it did not list, in one `queryBatch` (see the header). */
  private async complete(
    definition: VectorIndexDefinition,
    needed: { readonly vector: readonly string[]; readonly keyword: readonly string[] },
    vector: readonly number[] | Float32Array,
    sparse: Schemas['SparseVector'] | null,
    filter: QdrantFilter,
  ): Promise<LegCompletion> {
    const completion = { vector: new Map<string, number>(), keyword: new Map<string, number>() };
    const searches: QueryRequest[] = [];
    const legs: Array<{ leg: 'vector' | 'keyword'; into: Map<string, number> }> = [];
    if (needed.vector.length > 0) {
      searches.push({ ...denseRequest(vector, onlyIds(filter, needed.vector), needed.vector.length, false), params: { exact: true } });
      legs.push({ leg: 'vector', into: completion.vector });
    }
    // No query terms: nothing matches the text, every keyword score is 0.
    if (needed.keyword.length > 0 && sparse) {
      searches.push(sparseRequest(sparse, onlyIds(filter, needed.keyword), needed.keyword.length, false));
      legs.push({ leg: 'keyword', into: completion.keyword });
    }
    if (searches.length === 0) return completion;
    const responses = await this.store.client.queryBatch(this.collection, { searches });
    legs.forEach(({ leg, into }, i) => {
      for (const { id, score } of legOf(responses[i], definition, leg)) into.set(id, score);
    });
    return completion;
  }
}

/** The scope filter, further restricted to the given points. */
function onlyIds(filter: QdrantFilter, ids: readonly string[]): QdrantFilter {
  return { must: [filter, { has_id: ids.map(pointUuid) }] };
}

function denseRequest(vector: readonly number[] | Float32Array, filter: QdrantFilter, limit: number, withPayload: boolean): QueryRequest {
  return { query: Array.from(vector), using: DENSE, filter, limit, with_payload: withPayload ? true : ['point_id'] };
}

function sparseRequest(sparse: Schemas['SparseVector'], filter: QdrantFilter, limit: number, withPayload: boolean): QueryRequest {
  return { query: sparse, using: SPARSE, filter, limit, with_payload: withPayload ? true : ['point_id'] };
}

/** A leg's candidates with Lore's ids and scores (higher is better: Qdrant's Euclid score is a distance). */
function legOf(response: Schemas['QueryResponse'] | undefined, definition: VectorIndexDefinition, leg: 'vector' | 'keyword'): LegCandidate[] {
  const negate = leg === 'vector' && definition.distance === 'euclidean';
  const out: LegCandidate[] = [];
  for (const scored of response?.points ?? []) {
    const id = scored.payload?.point_id;
    if (typeof id === 'string') out.push({ id, score: negate ? -scored.score : scored.score });
  }
  return out.sort(byScoreThenId);
}

function hits(leg: readonly LegCandidate[], response: Schemas['QueryResponse'] | undefined): PointHit[] {
  const byId = new Map<string, StoredPoint>();
  for (const scored of response?.points ?? []) {
    const point = toStored(scored.payload);
    if (point) byId.set(point.id, point);
  }
  return leg.flatMap((candidate, i) => {
    const point = byId.get(candidate.id);
    return point ? [{ ...point, score: candidate.score, rank: i + 1 }] : [];
  });
}
