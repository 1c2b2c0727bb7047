/**
 * Vector index port, shaped after Qdrant: points (chunks of contents) with a dense vector,
 * their text for BM25, and a payload, kept in named indexes (one per embedding model and
 * dimension), partitioned by collection id (the tenant). Searched by dense k-NN, by BM25
 * keyword search, or both fused, always scoped to collections and under one filter grammar
 * (`vector-filter.ts`).
 *
 * Written by projections like the document store: `write(writes, checkpoint)` applies a
 * batch and records the projection's checkpoint. Atomically on engines that can (SQLite);
 * elsewhere (Qdrant) the writes are applied in order and the checkpoint last, so a crash
 * replays the batch, and every write is idempotent: an upsert sets the whole point, a delete
 * of a missing point does nothing, a `setPayload` of a missing point does nothing. Replaying
 * a batch (or several) therefore converges on the same state.
 */
import { type VectorFilter, type FusionOptions } from '@lore/platform/kernel';

export type JsonValue = string | number | boolean | null | readonly JsonValue[] | { readonly [key: string]: JsonValue };
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/**
 * cosine: score = cosine similarity (1 is identical). euclidean: score = minus the L2
 * distance (0 is identical). Either way a higher score is a nearer point.
 */
export type Distance = 'cosine' | 'euclidean';

export interface VectorIndexDefinition {
  /** `[a-z0-9][a-z0-9_]{0,47}`, e.g. `minilm_l6_384`. */
  readonly name: string;
  readonly dimensions: number;
  readonly distance: Distance;
}

/** What is stored with every point; the filter grammar's paths name these fields. */
export interface PointPayload {
  readonly content_id: string;
  readonly chunk_index: number;
  /** Where the content came from (a file name, a URL); null when unknown. */
  readonly source: string | null;
  readonly tags: readonly string[];
  /** The user's metadata, arbitrary JSON; filterable by `metadata.<path>`. */
  readonly metadata: JsonObject;
}

export type Vector = readonly number[] | Float32Array;

export interface VectorPoint {
  /** Unique within an index (a chunk id). Upserting an existing id replaces the whole point. */
  readonly id: string;
  /** The partition: a point is only ever found by searches scoped to its collection. */
  readonly collectionId: string;
  readonly vector: Vector;
  /** Indexed for keyword (BM25) search and returned with hits. */
  readonly text: string;
  readonly payload: PointPayload;
}

export interface StoredPoint {
  readonly id: string;
  readonly collectionId: string;
  readonly text: string;
  readonly payload: PointPayload;
  /** Only when asked for (`withVector`); float32 precision. */
  readonly vector?: number[];
}

export type VectorWrite =
  | { readonly op: 'upsert'; readonly index: string; readonly points: readonly VectorPoint[] }
  | { readonly op: 'delete'; readonly index: string; readonly ids: readonly string[] }
  /**
   * Deletes every point of the collections that matches the filter (all of them without one),
   * in the named index or, without `index`, in every index of the store: deleting a collection
   * or a content must reach every model's index, including one being built.
   */
  | { readonly op: 'deleteWhere'; readonly index?: string; readonly collections: readonly string[]; readonly filter?: VectorFilter }
  /** Replaces the given top-level payload fields of existing points (e.g. `metadata`), keeping vector and text. */
  | { readonly op: 'setPayload'; readonly index: string; readonly ids: readonly string[]; readonly payload: Partial<PointPayload> };

export interface Checkpoint {
  readonly name: string;
  readonly value: string;
}

export interface SearchScope {
  /** Collection ids to search (at least one); no point of another collection is ever returned. */
  readonly collections: readonly string[];
  readonly filter?: VectorFilter;
}

export interface VectorQuery extends SearchScope {
  readonly vector: Vector;
  /** 1..MAX_CANDIDATES */
  readonly limit: number;
}

export interface KeywordQuery extends SearchScope {
  /** User text: any characters; terms are extracted, never parsed as a query language. */
  readonly text: string;
  readonly limit: number;
}

export interface HybridQuery extends SearchScope {
  readonly vector: Vector;
  readonly text: string;
  readonly limit: number;
  /** Default: DEFAULT_FUSION. */
  readonly fusion?: FusionOptions;
  /** How many hits each leg contributes to the fusion: limit..MAX_CANDIDATES, default max(limit, DEFAULT_HYBRID_CANDIDATES). */
  readonly candidates?: number;
}

export interface PointHit {
  readonly id: string;
  readonly collectionId: string;
  readonly text: string;
  readonly payload: PointPayload;
  /** Higher is better: similarity (vector), BM25 (keyword), fused score (hybrid). */
  readonly score: number;
  /** 1-based position in the returned list. */
  readonly rank: number;
}

/**
 * A hit's score on one leg, and its 1-based rank within that leg's own filtered candidates;
 * `rank` is null when the leg did not list the point and the score was completed (below).
 */
export interface LegScore {
  readonly score: number;
  readonly rank: number | null;
}

export interface HybridHit extends PointHit {
  /**
   * Each leg's view of the point, the same on every adapter:
   * - the leg listed it among its `candidates`: `{ score, rank }`, exactly as that leg's own
   *   search (`searchVector` / `searchKeyword`) scores and ranks it;
   * - it did not, under a completing fusion (`weighted_score`, the default): `{ score, rank: null }`,
   *   the score that leg's own search gives the point (vector: its similarity to the query
   *   vector; keyword: its BM25 for the query text, 0 when it does not match the text at all);
   *   so both legs are always present;
   * - it did not, under any other fusion: null.
   */
  readonly legs: { readonly vector: LegScore | null; readonly keyword: LegScore | null };
}

export interface VectorIndex {
  readonly name: string;
  /** The stored points among `ids`, in the order asked; missing ids are left out. */
  get(ids: readonly string[], options?: { readonly withVector?: boolean }): Promise<StoredPoint[]>;
  count(scope: SearchScope): Promise<number>;
  /**
   * The `limit` nearest matching points (or all matches when fewer), nearest first. Engines may
   * answer big collections approximately, as Qdrant's HNSW does and the SQLite adapter's IVF does
   * from 20k points per collection (unfiltered searches; recall@10 >= 0.95 measured, see
   * vectors/README.md); never fewer than `limit` when that many points match.
   */
  searchVector(query: VectorQuery): Promise<PointHit[]>;
  /** BM25 over the stemmed text (terms ORed), best first; text with no terms finds nothing. */
  searchKeyword(query: KeywordQuery): Promise<PointHit[]>;
  /**
   * Both legs under the same scope and filter, each `candidates` deep, fused by `fusion` with
   * the port's `fuse`. For a completing fusion (`completes(fusion)`, the default) the adapter
   * then scores the candidates each leg did not list on that leg (`completionNeeded`:
   * at most 2 × `candidates` points, by id, never a scan) and passes them as `LegCompletion`.
   */
  searchHybrid(query: HybridQuery): Promise<HybridHit[]>;
}

export interface VectorStore {
  /** Creates the index if missing; an existing one with another dimension or distance is an error. */
  ensureIndex(definition: VectorIndexDefinition): Promise<void>;
  listIndexes(): Promise<VectorIndexDefinition[]>;
  /** Removes the index and its points (e.g. an old model's, once its replacement serves). Idempotent. */
  dropIndex(name: string): Promise<void>;
  /** A handle; operations on it fail while no index of that name exists. */
  index(name: string): VectorIndex;
  /**
   * Applies writes in order together with a checkpoint: atomic where the engine allows
   * (SQLite), otherwise writes first and checkpoint last, every write idempotent (see above).
   */
  write(writes: readonly VectorWrite[], checkpoint?: Checkpoint): Promise<void>;
  getCheckpoint(name: string): Promise<string | null>;
  /** Rebuild support: empties the named indexes (keeping their definitions) and removes the checkpoint. */
  reset(indexes: readonly string[], checkpointName: string): Promise<void>;
  /**
   * Makes deletions physical: after it returns, no deleted point's text, payload or vector
   * remains in files the adapter controls (SQLite: secure_delete, the keyword index's records and unused vocabulary deleted, WAL
   * truncation). Engines whose files are not the adapter's document what they do instead.
   */
  purgeDeleted(): Promise<void>;
  close(): Promise<void>;
}
