import type { DocumentStore } from '@lore/platform/documents/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import { PurgeWorker, type FollowedErasure, type PurgeWorkerDeps } from '@lore/platform/projections';
import { CHUNKS, type ChunkDoc } from './knowledge.read-models';
import { CHUNK_PURGES, attemptPurgeId, purgedChunks, type ChunkPurgeDoc } from './chunk-purges';
import { COLLECTION_ERASURE, KNOWLEDGE_ERASURE } from './knowledge-erasure.reactor';
import { collectionStreamId, contentStreamId } from '@lore/knowledge/domain';

export type ChunkPurgeWorkerDeps = Omit<PurgeWorkerDeps<ChunkPurgeDoc>, 'records' | 'kind' | 'removePage' | 'afterPages'> & { readonly vectors: VectorStore };

/**
 * The erasure a chunk purge follows (`afterErasure`): a deleted content's or collection's. A
 * content's earlier attempts are no erasure's: their purge follows the read models alone.
 */
export function chunkPurgeErasure(purge: ChunkPurgeDoc): FollowedErasure | null {
  if (purge.content_id === null) return { reactor: COLLECTION_ERASURE, stream: collectionStreamId(purge.collection_id) };
  if (purge.id === attemptPurgeId(purge.content_id)) return null;
  return { reactor: KNOWLEDGE_ERASURE, stream: contentStreamId(purge.content_id) };
}

/**
 * Removes the chunk records and vector points of deleted contents and collections, and of
 * contents' earlier attempts (see chunk-purges.ts), in pages that take turns with every other
 * purge's (PurgeWorker).
 */
export class ChunkPurgeWorker extends PurgeWorker<ChunkPurgeDoc> {
  constructor(deps: ChunkPurgeWorkerDeps) {
    super({ ...deps, records: CHUNK_PURGES, kind: 'chunks', removePage: (purge, limit) => removePage(deps, purge, limit), afterPages: (purge) => afterPages(deps, purge) });
  }
}

/**
 * The points the pages could not find, then, for a deletion, the engines made to forget what
 * the pages removed (its words, opened, were in the chunk records and points): a deletion's
 * purge ends its erasure (chunk-purges.ts), so its end is the DELETE's 200.
 */
async function afterPages(deps: { readonly documents: DocumentStore; readonly vectors: VectorStore }, purge: ChunkPurgeDoc): Promise<void> {
  await sweepPoints(deps.vectors, purge);
  if (chunkPurgeErasure(purge) === null) return;
  await deps.vectors.purgeDeleted();
  await deps.documents.purgeDeleted();
}

async function removePage(deps: { readonly documents: DocumentStore; readonly vectors: VectorStore }, purge: ChunkPurgeDoc, limit: number): Promise<number> {
  const { filter, sort } = purgedChunks(purge);
  const ids = (await deps.documents.collection<ChunkDoc>(CHUNKS).find({ filter, sort, limit })).items.map((chunk) => chunk.id);
  if (ids.length === 0) return 0;
  // Every index: a collection being re-indexed has points in two (a point id is its chunk's id).
  for (const { name } of await deps.vectors.listIndexes()) await deps.vectors.write([{ op: 'delete', index: name, ids }]);
  await deps.documents.write(ids.map((id) => ({ collection: CHUNKS, op: 'delete' as const, id })));
  return ids.length;
}

/** Points whose record was gone already (an attempt's chunks replaced meanwhile): one pass by filter, which finds few or none. */
async function sweepPoints(vectors: VectorStore, purge: ChunkPurgeDoc): Promise<void> {
  await vectors.write([{ op: 'deleteWhere', collections: [purge.collection_id], ...(purge.content_id === null ? {} : { filter: { content_id: purge.content_id } }) }]);
}
