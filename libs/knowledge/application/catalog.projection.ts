import type { Projection, ProjectionContext } from '@lore/platform/projections';
import { COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX, upcastCollectionEvent, upcastContentEvent } from '@lore/knowledge/domain';
import { COLLECTIONS, CONTENTS, type CollectionDoc, type ContentDoc } from './knowledge.read-models';
import { collectionDoc, withProperties } from './collection-docs';

/**
 * Collections and contents, with each collection's stats kept in step: one projection, so
 * that a content's event can adjust its collection's counts in the same batch.
 */
export const catalogProjection: Projection = {
  name: 'knowledge.catalog.v1',
  streamPrefixes: [COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX],
  collections: [COLLECTIONS, CONTENTS],
  async handle(recorded, context) {
    if (recorded.streamId.startsWith(COLLECTION_STREAM_PREFIX)) return handleCollectionEvent(upcastCollectionEvent(recorded), context);
    const event = upcastContentEvent(recorded);
    const d = event.data;
    const content = await context.get<ContentDoc>(CONTENTS, d.contentId);
    switch (event.type) {
      case 'knowledge.ContentAdded': {
        if (content !== null) return; // redelivered
        const doc: ContentDoc = {
          id: d.contentId,
          collection_id: event.data.collectionId,
          workspace_id: event.data.workspaceId,
          name: event.data.name,
          source: event.data.source,
          mime_type: event.data.mimeType,
          size: event.data.sizeBytes,
          metadata: event.data.metadata,
          status: 'new',
          error: null,
          attempts: 0,
          chunk_count: 0,
          created_at: event.data.createdAt,
          updated_at: event.data.createdAt,
          processed_at: null,
          created_by: event.data.createdBy,
          original: null,
          lease_until: null,
          retry_at: null,
          original_kept_at: null,
        };
        context.upsert(CONTENTS, doc);
        await adjustStats(context, event.data.collectionId, { contents: 1, bytes: event.data.sizeBytes });
        return;
      }
      case 'knowledge.ContentDeleted':
        if (content === null) return;
        context.delete(CONTENTS, d.contentId);
        await adjustStats(context, event.data.collectionId, { contents: -1, bytes: -content.size, chunks: -content.chunk_count });
        return;
      default:
        break;
    }
    if (content === null) return; // deleted (or its collection was) before this event was projected
    switch (event.type) {
      case 'knowledge.ContentProcessingStarted':
        // The attempt starts over: earlier chunks are gone.
        await adjustStats(context, content.collection_id, { chunks: -content.chunk_count });
        context.upsert(CONTENTS, {
          ...content,
          status: 'processing',
          attempts: event.data.attempt,
          chunk_count: 0,
          lease_until: event.data.leaseUntil,
          retry_at: null,
          updated_at: event.data.startedAt,
        });
        return;
      case 'knowledge.ContentLeaseRenewed':
        context.upsert(CONTENTS, { ...content, lease_until: event.data.leaseUntil });
        return;
      case 'knowledge.ContentTextAppended': // the record shows the whole size from the start
        return;
      case 'knowledge.ContentChunksAdded':
        return;
      case 'knowledge.ContentProcessingCompleted':
        await adjustStats(context, content.collection_id, { chunks: event.data.chunkCount - content.chunk_count });
        context.upsert(CONTENTS, {
          ...content,
          status: 'completed',
          error: null,
          chunk_count: event.data.chunkCount,
          lease_until: null,
          processed_at: event.data.completedAt,
          updated_at: event.data.completedAt,
        });
        return;
      case 'knowledge.ContentProcessingFailed':
        context.upsert(CONTENTS, {
          ...content,
          status: event.data.retryAt === null ? 'failed' : 'processing',
          error: event.data.error,
          lease_until: null,
          retry_at: event.data.retryAt,
          updated_at: event.data.failedAt,
        });
        return;
      case 'knowledge.ContentReprocessRequested': {
        // Extracted again from the original: the text's size may have changed.
        const size = event.data.text?.sizeBytes ?? content.size;
        if (size !== content.size) await adjustStats(context, content.collection_id, { bytes: size - content.size });
        context.upsert(CONTENTS, { ...content, size, status: 'new', error: null, lease_until: null, retry_at: null, updated_at: event.data.requestedAt });
        return;
      }
      case 'knowledge.ContentOriginalKept': {
        const { file } = event.data;
        context.upsert(CONTENTS, { ...content, original: { file_name: file.name, content_type: file.contentType, size: file.sizeBytes }, original_kept_at: event.data.keptAt });
        return;
      }
      case 'knowledge.ContentOriginalDiscarded':
        context.upsert(CONTENTS, { ...content, original: null, original_kept_at: null });
        return;
      case 'knowledge.ChunkEdited':
        context.upsert(CONTENTS, { ...content, updated_at: event.data.editedAt });
        return;
      case 'knowledge.ChunkDeleted':
        await adjustStats(context, content.collection_id, { chunks: -1 });
        context.upsert(CONTENTS, { ...content, chunk_count: Math.max(0, content.chunk_count - 1), updated_at: event.data.deletedAt });
        return;
    }
  },
};

async function handleCollectionEvent(event: ReturnType<typeof upcastCollectionEvent>, context: ProjectionContext): Promise<void> {
  const current = await context.get<CollectionDoc>(COLLECTIONS, event.data.collectionId);
  switch (event.type) {
    case 'knowledge.CollectionCreated':
      if (current === null) context.upsert(COLLECTIONS, collectionDoc(event.data));
      return;
    case 'knowledge.CollectionUpdated':
      if (current !== null) context.upsert(COLLECTIONS, { ...withProperties(current, event.data.changes), updated_at: event.data.updatedAt });
      return;
    case 'knowledge.CollectionReindexStarted':
      if (current !== null) context.upsert(COLLECTIONS, { ...current, pending_model: event.data.to, updated_at: event.data.startedAt });
      return;
    case 'knowledge.CollectionChunksReindexed':
      return;
    case 'knowledge.CollectionReindexCompleted':
      if (current !== null) context.upsert(COLLECTIONS, { ...current, model: event.data.to, pending_model: null, updated_at: event.data.completedAt });
      return;
    case 'knowledge.CollectionDeleted':
      context.delete(COLLECTIONS, event.data.collectionId);
      // Its contents disappear with it at once; their own ContentDeleted events follow (cascade).
      context.deleteMany(CONTENTS, { collection_id: event.data.collectionId });
      return;
  }
}

async function adjustStats(context: ProjectionContext, collectionId: string, delta: { contents?: number; chunks?: number; bytes?: number }): Promise<void> {
  const collection = await context.get<CollectionDoc>(COLLECTIONS, collectionId);
  if (collection === null) return;
  const stats = collection.stats;
  context.upsert(COLLECTIONS, {
    ...collection,
    stats: {
      content_count: Math.max(0, stats.content_count + (delta.contents ?? 0)),
      chunk_count: Math.max(0, stats.chunk_count + (delta.chunks ?? 0)),
      total_bytes: Math.max(0, stats.total_bytes + (delta.bytes ?? 0)),
    },
  });
}
