import type { RecordedEvent } from '@lore/platform/kernel';
import type { Projection, ProjectionContext } from '@lore/platform/projections';
import { COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX, chunkIdOf, upcastCollectionEvent, upcastContentEvent } from '@lore/knowledge/domain';
import { CHUNKS, type ChunkDoc } from './knowledge.read-models';
import { chunkMetadata } from './chunk-shape';
import type { ContentTexts } from './content-texts';
import { CHUNK_PURGES, attemptPurgeId, recordAttemptPurge, recordCollectionPurge, recordContentPurge } from './chunk-purges';

/**
 * Chunk records for listing and reading (their vectors live in the vector index), with their
 * texts opened. A deleted content's or collection's chunks, and a content's earlier attempts',
 * are not deleted here but recorded as a purge (chunk-purges.ts): reads leave them out at once,
 * the purge worker removes them.
 */
export const chunksProjection = (texts: ContentTexts): Projection => ({
  name: 'knowledge.chunks.v1',
  streamPrefixes: [COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX],
  collections: [CHUNKS],
  // A deletion's purge runs after its erasure deleted the stream, so a replay could not record it
  // again, and the vector index (not rebuilt with this projection) would keep the content's
  // points, words and all. An attempt's kept record is taken back by the replay, at that
  // attempt's first chunks, as live.
  keptOnRebuild: [CHUNK_PURGES],
  async handle(recorded, context) {
    if (recorded.streamId.startsWith(COLLECTION_STREAM_PREFIX)) {
      const event = upcastCollectionEvent(recorded);
      if (event.type === 'knowledge.CollectionDeleted') recordCollectionPurge(context, event.data, recorded.position);
      return;
    }
    const event = upcastContentEvent(recorded);
    switch (event.type) {
      // A new attempt starts over; a failed one (given up, or waiting for its retry) leaves
      // no partial chunks behind to list or search. The first attempt has none to drop.
      case 'knowledge.ContentProcessingStarted':
        if (event.data.attempt > 1) await startOver(context, event.data, recorded);
        return;
      case 'knowledge.ContentProcessingFailed':
      case 'knowledge.ContentReprocessRequested':
        await startOver(context, event.data, recorded);
        return;
      case 'knowledge.ContentDeleted':
        recordContentPurge(context, event.data, recorded.position);
        return;
      case 'knowledge.ContentChunksAdded': {
        const d = event.data;
        // An attempt's first chunks: live, its earlier attempts' are purged already (the attempt
        // waited for it), so this finds nothing. Replayed, the purge is still pending and would
        // take these chunks along: the earlier chunks go here instead, with the record.
        if (d.chunks[0]?.chunkIndex === 0) {
          context.deleteMany(CHUNKS, { content_id: d.contentId });
          context.delete(CHUNK_PURGES, attemptPurgeId(d.contentId));
        }
        for (const chunk of d.chunks) {
          const text = await texts.open(d.contentId, chunk.text);
          const doc: ChunkDoc = {
            id: chunk.chunkId,
            content_id: d.contentId,
            collection_id: d.collectionId,
            workspace_id: d.workspaceId,
            content_name: d.contentName,
            source: d.source,
            content: text,
            metadata: chunkMetadata(d.metadata, chunk),
            chunk_index: chunk.chunkIndex,
            size_bytes: Buffer.byteLength(text),
            created_at: d.addedAt,
            updated_at: d.addedAt,
          };
          context.upsert(CHUNKS, doc);
        }
        return;
      }
      case 'knowledge.ChunkEdited': {
        const current = await context.get<ChunkDoc>(CHUNKS, event.data.chunkId);
        if (current === null) return;
        const text = await texts.open(event.data.contentId, event.data.text);
        context.upsert(CHUNKS, {
          ...current,
          content: text,
          size_bytes: Buffer.byteLength(text),
          metadata: event.data.metadata,
          updated_at: event.data.editedAt,
        });
        return;
      }
      case 'knowledge.ChunkDeleted':
        context.delete(CHUNKS, event.data.chunkId);
        return;
      default:
        return;
    }
  },
});

/**
 * Records the purge of a content's earlier attempts' chunks, unless one is pending: no chunk was
 * written since that one was recorded (the next attempt waits for it), so it covers them all,
 * and recorded anew it would go to the back of its workspace's purges with an attempt waiting.
 */
async function startOver(context: ProjectionContext, d: { readonly contentId: string; readonly collectionId: string }, recorded: RecordedEvent): Promise<void> {
  if ((await context.get(CHUNK_PURGES, attemptPurgeId(d.contentId))) !== null) return;
  // The purge takes turns by workspace: an attempt the sweep found (after a restart) has no cause, so no workspace in its metadata.
  const workspaceId = recorded.metadata.workspaceId ?? (await context.get<ChunkDoc>(CHUNKS, chunkIdOf(d.contentId, 0)))?.workspace_id ?? '';
  recordAttemptPurge(context, { ...d, workspaceId }, recorded.position);
}
