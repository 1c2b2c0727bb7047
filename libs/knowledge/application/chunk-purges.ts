import type { Position } from '@lore/platform/kernel';
import type { DocumentStore, Filter } from '@lore/platform/documents/port';
import { purgePosition, type ProjectionContext, type PurgeDoc } from '@lore/platform/projections';
import { mayAccess, type Access } from '@lore/knowledge/domain';

/**
 * Chunks of a deleted content (or collection) waiting to be removed from the chunk records and
 * the vector index. A deletion used to remove them inside the projections' batch, 200 a
 * transaction: tens of thousands of chunks held both projections for seconds, and every other
 * workspace's knowledge writes waited for them (read-your-writes; a probe saw a 503). The chunk
 * projection now records the purge in the deletion's own batch, constant work; reads leave out
 * what it names from that moment (`PendingPurges`, after reading: a filter of pending purges
 * would change under a paging cursor, and grow with them); the purge worker removes the chunks
 * afterwards, taking turns by workspace, and deletes the record. A deletion's purge runs once
 * its erasure (the key shredded, the stream deleted) has passed the deletion, never the other
 * way round (`chunkPurgeErasure`, chunk-purge.worker.ts): the erasure reactor serves every workspace in log order, and
 * while it waited for one large content's purge every other workspace's erasures waited too.
 * With the stream gone first, nothing can bring back the chunks the purge removed (a read
 * model rebuilt replays no deleted stream). The DELETE waits for both.
 *
 * A content that starts over (reprocessed, a failed attempt, a new attempt after a lapsed lease)
 * drops its earlier attempts' chunks the same way: an attempt purge (`attemptPurgeId`). Chunk ids
 * are the same in every attempt, so the new attempt writes no chunk until that purge is done
 * (`ContentProcessor.run` waits for it): while one is pending, every chunk of the content is an
 * earlier attempt's.
 */
export const CHUNK_PURGES = 'chunk_purges';

export interface ChunkPurgeDoc extends PurgeDoc {
  readonly collection_id: string;
  /** null: the whole collection. */
  readonly content_id: string | null;
}

export const collectionPurgeId = (collectionId: string): string => `collection:${collectionId}`;
export const attemptPurgeId = (contentId: string): string => `attempt:${contentId}`;

function purgeDoc(position: Position, fields: Pick<ChunkPurgeDoc, 'id' | 'workspace_id' | 'collection_id' | 'content_id'>): ChunkPurgeDoc {
  return { ...fields, position: purgePosition(position) };
}

export function recordContentPurge(context: ProjectionContext, d: { readonly workspaceId: string; readonly collectionId: string; readonly contentId: string }, position: Position): void {
  context.upsert(CHUNK_PURGES, contentPurgeDoc(d, position));
}

export function recordCollectionPurge(context: ProjectionContext, d: { readonly workspaceId: string; readonly collectionId: string }, position: Position): void {
  context.upsert(CHUNK_PURGES, collectionPurgeDoc(d, position));
}

/**
 * The chunks of a content's earlier attempts. Recorded again by a later start-over (the same id):
 * its position moves on, and the worker, still running the earlier one, leaves it for a run of its own.
 */
export function recordAttemptPurge(context: ProjectionContext, d: { readonly workspaceId: string; readonly collectionId: string; readonly contentId: string }, position: Position): void {
  context.upsert(CHUNK_PURGES, purgeDoc(position, { id: attemptPurgeId(d.contentId), workspace_id: d.workspaceId, collection_id: d.collectionId, content_id: d.contentId }));
}

/**
 * The deletion's purge, recorded by the erasure where the chunk projection did not (it parked the
 * deletion and could not apply it when the erasure came): the erasure deletes the stream, so
 * without it the chunks, opened, and their points would stay for good. Recorded again where it
 * is pending (the same position): removing is idempotent.
 */
export async function ensureDeletionPurge(documents: DocumentStore, purge: ChunkPurgeDoc): Promise<void> {
  if ((await documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).get(purge.id)) === null) await documents.write([{ collection: CHUNK_PURGES, op: 'upsert', doc: purge }]);
}

/** The purge record of a content's deletion (`recordContentPurge`). */
export function contentPurgeDoc(d: { readonly workspaceId: string; readonly collectionId: string; readonly contentId: string }, position: Position): ChunkPurgeDoc {
  return purgeDoc(position, { id: d.contentId, workspace_id: d.workspaceId, collection_id: d.collectionId, content_id: d.contentId });
}

/** The purge record of a collection's deletion (`recordCollectionPurge`). */
export function collectionPurgeDoc(d: { readonly workspaceId: string; readonly collectionId: string }, position: Position): ChunkPurgeDoc {
  return purgeDoc(position, { id: collectionPurgeId(d.collectionId), workspace_id: d.workspaceId, collection_id: d.collectionId, content_id: null });
}

/** The chunk records a purge removes, in the order of the index that finds them (a page of them is then read off the index, not sorted out of them all). */
export function purgedChunks(purge: ChunkPurgeDoc): { readonly filter: Filter; readonly sort: Array<[string, 'asc']> } {
  return purge.content_id === null
    ? { filter: { workspace_id: purge.workspace_id, collection_id: purge.collection_id }, sort: [['workspace_id', 'asc'], ['collection_id', 'asc'], ['content_id', 'asc'], ['chunk_index', 'asc']] }
    : { filter: { content_id: purge.content_id }, sort: [['content_id', 'asc'], ['chunk_index', 'asc']] };
}

/** What reads leave out while purges are pending: a lookup, by id, of the purges of the contents and collections of what was read. */
export class PendingPurges {
  constructor(private readonly documents: DocumentStore) {}

  /** Of these chunks (records or search hits), which are being purged. */
  async among(chunks: readonly { readonly content_id: string; readonly collection_id: string }[]): Promise<(chunk: { readonly content_id: string; readonly collection_id: string }) => boolean> {
    if (chunks.length === 0) return () => false;
    const ids = new Set<string>();
    for (const chunk of chunks) ids.add(chunk.content_id).add(attemptPurgeId(chunk.content_id)).add(collectionPurgeId(chunk.collection_id));
    const found = await this.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).find({ filter: { id: { $in: [...ids] } } });
    if (found.items.length === 0) return () => false;
    const purged = new Set(found.items.map((p) => p.id));
    return (chunk) => purged.has(chunk.content_id) || purged.has(attemptPurgeId(chunk.content_id)) || purged.has(collectionPurgeId(chunk.collection_id));
  }

  /** Whether this chunk is being purged. */
  async covers(chunk: { readonly content_id: string; readonly collection_id: string }): Promise<boolean> {
    return (await this.among([chunk]))(chunk);
  }

  /** Whether this content's deletion purge is pending and the caller's to see (another's is a 404 to them). */
  async pendingFor(contentId: string, access: Access): Promise<boolean> {
    const purge = await this.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).get(contentId);
    return purge !== null && mayAccess(access, { workspaceId: purge.workspace_id, collectionId: purge.collection_id });
  }

  /** Whether any purge of this collection (its own, its contents') is pending and the caller's to see. */
  async pendingInCollection(collectionId: string, access: Access): Promise<boolean> {
    const [purge] = (await this.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).find({ filter: { collection_id: collectionId }, limit: 1 })).items;
    return purge !== undefined && mayAccess(access, { workspaceId: purge.workspace_id, collectionId: purge.collection_id });
  }

  /** Whether any of these purges (a content's id, `attemptPurgeId`, `collectionPurgeId`) is pending. */
  async pending(purgeIds: readonly string[]): Promise<boolean> {
    return (await this.documents.collection<ChunkPurgeDoc>(CHUNK_PURGES).find({ filter: { id: { $in: [...purgeIds] } }, limit: 1 })).items.length > 0;
  }
}
