/**
 * Production vector index on Qdrant (`@qdrant/js-client-rest`). One Qdrant collection per
 * index, `<prefix>_<index>`, holding:
 * - a named dense vector `dense` (the index's size and distance: Cosine or Euclid);
 * - a named sparse vector `bm25` with the `idf` modifier: BM25 term weights computed in
 *   TypeScript with FTS5's analysis (`sparse-bm25.ts`), IDF applied by Qdrant at query time;
 * - the payload: `point_id` (Lore's string id; Qdrant's id is a UUID derived from it),
 *   `collection_id` (keyword index, `is_tenant`: Qdrant keeps each tenant's points together),
 *   `content_id`, `source`, `tags` (keyword indexes), `chunk_index` (integer index),
 *   `metadata`, and `text`.
 * Checkpoints live in `<prefix>__checkpoints` (a point per checkpoint).
 *
 * Writes are not atomic (Qdrant has no transactions): a batch's operations are sent in order,
 * grouped per Qdrant collection into `batchUpdate` requests that Qdrant applies in order, each
 * awaited (`wait: true`) before the next, and the checkpoint last. A crash replays the batch;
 * every operation is idempotent (upsert by derived id; delete and set_payload by id filter, so a
 * missing point is no error), so a replay converges on the same state.
 */
import { QdrantClient } from '@qdrant/js-client-rest';
import type { Schemas } from '@qdrant/js-client-rest';
import { notFound, compileFilter } from '@lore/platform/kernel';
import type { Checkpoint, VectorIndex, VectorIndexDefinition, VectorPoint, VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { assertId, assertIndexDefinition, assertIndexName, assertPayload, assertPoint, assertScope, sameDefinition, storedVector } from '@lore/platform/vectors/port';
import { pointUuid } from './qdrant-point-id';
import { COLLECTION_KEY, scopedFilter } from './qdrant-filter.translator';
import { DEFAULT_BM25, documentVector } from './sparse-bm25';
import type { Bm25Parameters } from './sparse-bm25';
import { QdrantVectorIndex } from './qdrant-vector-index';
import { DENSE, SPARSE } from './qdrant-points';
import type { StoredPayload } from './qdrant-points';

export interface QdrantVectorStoreOptions {
  /** e.g. http://localhost:6333 */
  readonly url: string;
  readonly apiKey?: string;
  /** Qdrant collections of this store are `<prefix>_<index>`; default `lore`. */
  readonly prefix?: string;
  readonly bm25?: Partial<Bm25Parameters>;
  /** Per request; default 30 s. */
  readonly timeoutMs?: number;
}

const PREFIX = /^[a-z0-9][a-z0-9_-]{0,31}$/;
/** Points per request: a projection batch of 384-d vectors stays far below Qdrant's 32 MB body limit. */
const POINTS_PER_REQUEST = 256;

/** Connects eagerly, so that a wrong URL or key fails at start-up rather than on the first search. */
export async function openQdrantVectorStore(options: QdrantVectorStoreOptions): Promise<VectorStore> {
  const prefix = options.prefix ?? 'lore';
  if (!PREFIX.test(prefix)) throw new Error(`invalid Qdrant collection prefix ${JSON.stringify(prefix)}: use [a-z0-9_-], at most 32 characters`);
  const client = new QdrantClient({
    url: options.url,
    timeout: options.timeoutMs ?? 30_000,
    checkCompatibility: false,
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
  await client.versionInfo();
  return new QdrantVectorStore(client, prefix, { ...DEFAULT_BM25, ...options.bm25 });
}

export function isNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { status?: unknown }).status === 404;
}

type Operation = Schemas['UpdateOperation'];

export class QdrantVectorStore implements VectorStore {
  private readonly definitions = new Map<string, VectorIndexDefinition>();
  private checkpointsReady = false;

  constructor(
    readonly client: QdrantClient,
    private readonly prefix: string,
    private readonly bm25: Bm25Parameters,
  ) {}

  collectionOf(index: string): string {
    assertIndexName(index);
    return `${this.prefix}_${index}`;
  }

  private get checkpoints(): string {
    // Index names cannot start with `_`, so this never names an index's collection.
    return `${this.prefix}__checkpoints`;
  }

  async ensureIndex(definition: VectorIndexDefinition): Promise<void> {
    assertIndexDefinition(definition);
    const existing = await this.findDefinition(definition.name);
    if (existing) {
      if (!sameDefinition(existing, definition)) {
        throw new Error(`vector index ${definition.name} exists with ${existing.dimensions} dimensions (${existing.distance}), not ${definition.dimensions} (${definition.distance})`);
      }
      return;
    }
    await this.createCollection(definition);
  }

  async listIndexes(): Promise<VectorIndexDefinition[]> {
    const { collections } = await this.client.getCollections();
    const names = collections.map((c) => c.name).filter((name) => name.startsWith(`${this.prefix}_`) && name !== this.checkpoints);
    const out: VectorIndexDefinition[] = [];
    for (const name of names) {
      const definition = await this.findDefinition(name.slice(this.prefix.length + 1)).catch(() => undefined);
      if (definition) out.push(definition);
    }
    return out.sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  async dropIndex(name: string): Promise<void> {
    const collection = this.collectionOf(name);
    this.definitions.delete(name);
    if ((await this.client.collectionExists(collection)).exists) await this.client.deleteCollection(collection);
  }

  index(name: string): VectorIndex {
    assertIndexName(name);
    return new QdrantVectorIndex(this, name);
  }

  async write(writes: readonly VectorWrite[], checkpoint?: Checkpoint): Promise<void> {
    // Everything is validated and translated before the first request is sent.
    const planned: Array<{ collection: string; operation: Operation; points: number }> = [];
    for (const write of writes) planned.push(...(await this.plan(write)));
    let group: { collection: string; operations: Operation[]; points: number } | undefined;
    const flush = async (): Promise<void> => {
      if (group && group.operations.length > 0) await this.client.batchUpdate(group.collection, { operations: group.operations, wait: true });
      group = undefined;
    };
    for (const { collection, operation, points } of planned) {
      if (group && (group.collection !== collection || group.points + points > POINTS_PER_REQUEST)) await flush();
      group ??= { collection, operations: [], points: 0 };
      group.operations.push(operation);
      group.points += points;
    }
    await flush();
    if (checkpoint) {
      await this.ensureCheckpoints();
      await this.client.upsert(this.checkpoints, { wait: true, points: [{ id: pointUuid(checkpoint.name), vector: [1], payload: { name: checkpoint.name, value: checkpoint.value } }] });
    }
  }

  async getCheckpoint(name: string): Promise<string | null> {
    if (!(await this.checkpointsExist())) return null;
    const [record] = await this.client.retrieve(this.checkpoints, { ids: [pointUuid(name)], with_payload: true });
    const value = record?.payload?.value;
    return typeof value === 'string' ? value : null;
  }

  /** Checkpoint first: a crash midway leaves a rebuild from zero over partial data, never a checkpoint vouching for points that are gone. */
  async reset(indexes: readonly string[], checkpointName: string): Promise<void> {
    indexes.forEach(assertIndexName);
    if (await this.checkpointsExist()) await this.client.delete(this.checkpoints, { wait: true, points: [pointUuid(checkpointName)] });
    for (const name of indexes) {
      const definition = await this.findDefinition(name);
      if (!definition) continue;
      await this.client.deleteCollection(this.collectionOf(name));
      this.definitions.delete(name);
      await this.createCollection(definition);
    }
  }

  /**
   * Nothing the adapter can do: Qdrant removes deleted points from its segments itself (its
   * optimizer vacuums segments past `deleted_threshold`), and its files are not the adapter's
   * to rewrite. Permanent deletion on this engine rests on deleting the points (they are never
   * returned again, which the contract suite checks), crypto-shredding upstream (ARCHITECTURE
   * §3.7), and Qdrant's storage being encrypted at rest.
   */
  async purgeDeleted(): Promise<void> {
    return Promise.resolve();
  }

  async close(): Promise<void> {
    // The REST client holds no connection that needs closing (undici's pool idles out).
    return Promise.resolve();
  }

  // ---- shared with QdrantVectorIndex ----

  async definition(name: string): Promise<VectorIndexDefinition> {
    const found = await this.findDefinition(name);
    if (!found) throw notFound(`vector index ${name}`);
    return found;
  }

  // ---- internals ----

  private async findDefinition(name: string): Promise<VectorIndexDefinition | undefined> {
    const cached = this.definitions.get(name);
    if (cached) return cached;
    let info: Schemas['CollectionInfo'];
    try {
      info = await this.client.getCollection(this.collectionOf(name));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const vectors = info.config.params.vectors;
    const dense = vectors && !('size' in vectors) ? (vectors as Record<string, Schemas['VectorParams'] | undefined>)[DENSE] : undefined;
    if (!dense) throw new Error(`Qdrant collection ${this.collectionOf(name)} is not a Lore vector index (no "${DENSE}" vector)`);
    const distance = dense.distance === 'Cosine' ? 'cosine' : dense.distance === 'Euclid' ? 'euclidean' : undefined;
    if (!distance) throw new Error(`Qdrant collection ${this.collectionOf(name)} uses ${dense.distance} distance, which Lore does not`);
    const definition: VectorIndexDefinition = { name, dimensions: dense.size, distance };
    this.definitions.set(name, definition);
    return definition;
  }

  private async createCollection(definition: VectorIndexDefinition): Promise<void> {
    const collection = this.collectionOf(definition.name);
    try {
      await this.client.createCollection(collection, {
        vectors: { [DENSE]: { size: definition.dimensions, distance: definition.distance === 'cosine' ? 'Cosine' : 'Euclid' } },
        sparse_vectors: { [SPARSE]: { modifier: 'idf' } },
      });
    } catch (error) {
      // Another process may have created it meanwhile: then it must have the same shape.
      const existing = await this.findDefinition(definition.name).catch(() => undefined);
      if (!existing || !sameDefinition(existing, definition)) throw error;
    }
    const indexes: Array<[string, Schemas['PayloadFieldSchema']]> = [
      [COLLECTION_KEY, { type: 'keyword', is_tenant: true }],
      ['content_id', 'keyword'],
      ['source', 'keyword'],
      ['tags', 'keyword'],
      ['chunk_index', 'integer'],
    ];
    for (const [field_name, field_schema] of indexes) await this.client.createPayloadIndex(collection, { field_name, field_schema, wait: true });
    this.definitions.set(definition.name, { ...definition });
  }

  private async checkpointsExist(): Promise<boolean> {
    if (this.checkpointsReady) return true;
    this.checkpointsReady = (await this.client.collectionExists(this.checkpoints)).exists;
    return this.checkpointsReady;
  }

  private async ensureCheckpoints(): Promise<void> {
    if (await this.checkpointsExist()) return;
    try {
      await this.client.createCollection(this.checkpoints, { vectors: { size: 1, distance: 'Dot' } });
    } catch (error) {
      if (!(await this.client.collectionExists(this.checkpoints)).exists) throw error;
    }
    this.checkpointsReady = true;
  }

  private async plan(write: VectorWrite): Promise<Array<{ collection: string; operation: Operation; points: number }>> {
    switch (write.op) {
      case 'upsert': {
        const definition = await this.definition(write.index);
        for (const point of write.points) assertPoint(point, definition);
        const collection = this.collectionOf(write.index);
        const out: Array<{ collection: string; operation: Operation; points: number }> = [];
        for (let i = 0; i < write.points.length; i += POINTS_PER_REQUEST) {
          const slice = write.points.slice(i, i + POINTS_PER_REQUEST);
          out.push({ collection, operation: { upsert: { points: slice.map((p) => this.toPointStruct(p, definition)) } }, points: slice.length });
        }
        return out;
      }
      case 'delete':
        await this.definition(write.index);
        write.ids.forEach((id) => assertId(id));
        return write.ids.length === 0 ? [] : [{ collection: this.collectionOf(write.index), operation: { delete: { points: write.ids.map(pointUuid) } }, points: 0 }];
      case 'deleteWhere': {
        assertScope(write);
        const filter = scopedFilter(write.collections, compileFilter(write.filter));
        const names = write.index === undefined ? (await this.listIndexes()).map((d) => d.name) : [(await this.definition(write.index)).name];
        if (filter === null) return [];
        return names.map((name) => ({ collection: this.collectionOf(name), operation: { delete: { filter } }, points: 0 }));
      }
      case 'setPayload': {
        await this.definition(write.index);
        write.ids.forEach((id) => assertId(id));
        assertPayload(write.payload, true);
        const payload: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(write.payload)) if (value !== undefined) payload[key] = value;
        if (write.ids.length === 0 || Object.keys(payload).length === 0) return [];
        // By filter, not by `points`: a missing point is then no error, so a replay never fails.
        const operation: Operation = { set_payload: { payload, filter: { must: [{ has_id: write.ids.map(pointUuid) }] } } };
        return [{ collection: this.collectionOf(write.index), operation, points: 0 }];
      }
    }
  }

  private toPointStruct(point: VectorPoint, definition: VectorIndexDefinition): Schemas['PointStruct'] {
    const payload: StoredPayload = {
      point_id: point.id,
      collection_id: point.collectionId,
      content_id: point.payload.content_id,
      chunk_index: point.payload.chunk_index,
      source: point.payload.source,
      tags: [...point.payload.tags],
      metadata: point.payload.metadata,
      text: point.text,
    };
    const sparse = documentVector(point.text, this.bm25);
    const vector: Record<string, number[] | Schemas['SparseVector']> = { [DENSE]: Array.from(storedVector(point.vector, definition.distance)) };
    if (sparse.indices.length > 0) vector[SPARSE] = sparse;
    return { id: pointUuid(point.id), vector, payload: { ...payload } };
  }
}
