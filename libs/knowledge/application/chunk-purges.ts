import { positionToString, type Position, type VectorFilter } from '@lore/platform/kernel';
import type { Doc, DocumentStore, Filter } from '@lore/platform/documents/port';
import type { ProjectionContext } from '@lore/platform/projections';

/**
 * Chunks of a deleted content (or collection) waiting to be removed from the chunk records and
 * the vector index. A deletion used to remove them inside the projections' batch, 200 a
 * transaction: tens of thousands of chunks held both projections for seconds, and every other
 * workspace's knowledge writes waited for them (read-your-writes; a probe saw a 503). The chunk
 * projection now records the purge in the deletion's own batch, constant work; reads leave out
 * what it names from that moment; the purge worker removes the chunks afterwards, taking turns
 * by workspace, and deletes the record. Erasure waits for it before shredding the content's key.
 */
export const CHUNK_PURGES = 'chunk_purges';

export interface ChunkPurgeDoc extends Doc {
  readonly workspace_id: string;
  readonly collection_id: string;
  /** null: the whole collection. */
  readonly content_id: string | null;
  /** The deletion's place in the log: the purge waits until the read models have passed it. */
  readonly position: string;
}

export const collectionPurgeId = (collectionId: string): string => `collection:${collectionId}`;

export function recordContentPurge(context: ProjectionContext, d: { readonly workspaceId: string; readonly collectionId: string; readonly contentId: string }, position: Position): void {
  context.upsert(CHUNK_PURGES, { id: d.contentId, workspace_id: d.workspaceId, collection_id: d.collectionId, content_id: d.contentId, position: positionToString(position) } satisfies ChunkPurgeDoc);
}

export function recordCollectionPurge(context: ProjectionContext, d: { readonly workspaceId: string; readonly collectionId: string }, position: Position): void {
  context.upsert(CHUNK_PURGES, { id: collectionPurgeId(d.collectionId), workspace_id: d.workspaceId, collection_id: d.collectionId, content_id: null, position: positionToString(position) } satisfies ChunkPurgeDoc);
}

/** The chunk records a purge removes, in the order of the index that finds them (a page of them is then read off the index, not sorted out of them all). */
export function purgedChunks(purge: ChunkPurgeDoc): { readonly filter: Filter; readonly sort: readonly (readonly [string, 'asc'])[] } {
  return purge.content_id === null
    ? { filter: { workspace_id: purge.workspace_id, collection_id: purge.collection_id }, sort: [['workspace_id', 'asc'], ['collection_id', 'asc'], ['content_id', 'asc'], ['chunk_index', 'asc']] }
    : { filter: { content_id: purge.content_id }, sort: [['content_id', 'asc'], ['chunk_index', 'asc']] };
}

/** What reads leave out while purges are pending. */
export class PendingPurges {
  constructor(private readonly documents: DocumentStore) {}

  /** Whether a chunk of this content and collection is being purged. */
  async covers(chunk: { readonly content_id: string; readonly collection_id: string }): Promise<boolean> {
    const purges = this.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES);
    return (await purges.get(chunk.content_id)) !== null || (await purges.get(collectionPurgeId(chunk.collection_id))) !== null;
  }

  /**
   * `filter` over chunk records without the chunks being purged, or null when it can only
   * match purged ones (it names a purged content or collection). `scope` narrows the purges read.
   */
  async chunkFilter(filter: Record<string, unknown>, scope: { readonly workspaceId?: string; readonly collectionId?: string }): Promise<Filter | null> {
    const { contents, collections } = await this.pending(scope);
    const narrowed: Record<string, unknown> = { ...filter };
    for (const [field, purged] of [['content_id', contents], ['collection_id', collections]] as const) {
      if (purged.length === 0) continue;
      const value = without(filter[field], purged);
      if (value === null) return null;
      narrowed[field] = value;
    }
    return narrowed as Filter;
  }

  /** A search of one (live) collection: the filter that leaves its purged contents' points out, or null when none are pending. */
  async pointFilter(collectionId: string): Promise<VectorFilter | null> {
    const { contents } = await this.pending({ collectionId });
    return contents.length === 0 ? null : { content_id: { $nin: contents } };
  }

  /**
   * The purged collections, then the purged contents outside them: a collection deleted with
   * thousands of contents is one entry, not one per content (the cascade deletes each too).
   */
  private async pending(scope: { readonly workspaceId?: string; readonly collectionId?: string }): Promise<{ readonly contents: readonly string[]; readonly collections: readonly string[] }> {
    const purges = this.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES);
    const base: Record<string, unknown> = {};
    if (scope.workspaceId !== undefined) base['workspace_id'] = scope.workspaceId;
    if (scope.collectionId !== undefined) base['collection_id'] = scope.collectionId;
    const collections = (await purges.find({ filter: { ...base, content_id: null } })).items.map((p) => p.collection_id);
    if (scope.collectionId !== undefined && collections.length > 0) return { contents: [], collections };
    const outside = collections.length === 0 ? {} : { collection_id: { $nin: collections } };
    const contents = (await purges.find({ filter: { ...base, ...outside, content_id: { $ne: null } } })).items.flatMap((p) => (p.content_id === null ? [] : [p.content_id]));
    return { contents, collections };
  }
}

/** A chunk filter's condition on one field, narrowed to leave `purged` out; null when nothing is left. */
function without(condition: unknown, purged: readonly string[]): unknown {
  if (condition === undefined) return { $nin: purged };
  if (typeof condition === 'string') return purged.includes(condition) ? null : condition;
  const among = (condition as { readonly $in?: readonly unknown[] }).$in;
  if (Array.isArray(among) && Object.keys(condition as object).length === 1) return { $in: among.filter((v) => !purged.includes(v as string)) };
  throw new Error('chunk filters name a field by value or by $in');
}
