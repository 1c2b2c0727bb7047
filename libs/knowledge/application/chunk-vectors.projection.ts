import type { VectorProjection } from '@lore/platform/projections';
import type { JsonObject } from '@lore/platform/vectors/port';
import { COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX, upcastCollectionEvent, upcastContentEvent } from '@lore/knowledge/domain';
import { chunkMetadata, chunkPoint, decodeVector, tagsOf, type ChunkPointInput } from './chunk-shape';
import type { ContentTexts } from './content-texts';

export const CHUNK_VECTORS = 'knowledge.chunk-vectors.v1';

/**
 * Chunks as points of the vector index (dense vector, BM25 text, payload), partitioned by
 * collection. Read-your-writes waits for it, so a chunk edit is searchable when its response
 * returns. Deletions reach every index (`deleteWhere` without an index): a collection being
 * re-indexed has points in two. A deleted content's or collection's points, and a content's
 * earlier attempts', are removed by the purge worker (chunk-purges.ts), not here.
 */
export const chunkVectorsProjection = (texts: ContentTexts): VectorProjection => ({
  name: CHUNK_VECTORS,
  target: 'vectors',
  streamPrefixes: [COLLECTION_STREAM_PREFIX, CONTENT_STREAM_PREFIX],
  async handle(recorded, context) {
    if (recorded.streamId.startsWith(COLLECTION_STREAM_PREFIX)) {
      const event = upcastCollectionEvent(recorded);
      switch (event.type) {
        case 'knowledge.CollectionChunksReindexed': {
          const d = event.data;
          await context.ensureIndex(d.index);
          const points: ChunkPointInput[] = [];
          for (const c of d.chunks) {
            // A content erased since the batch was recorded has no key left: its chunks are gone.
            const text = await texts.openIfKept(c.contentId, c.text);
            if (text !== null) points.push({ id: c.chunkId, collectionId: d.collectionId, contentId: c.contentId, chunkIndex: c.chunkIndex, text, source: c.source, metadata: c.metadata, vector: decodeVector(c.vector) });
          }
          context.write({ op: 'upsert', index: d.index.name, points: points.map(chunkPoint) });
          return;
        }
        case 'knowledge.CollectionReindexCompleted':
          // The switch: the old model's points of this collection go.
          if (event.data.from.index !== event.data.to.index) context.write({ op: 'deleteWhere', index: event.data.from.index, collections: [event.data.collectionId] });
          return;
        default:
          return;
      }
    }
    const event = upcastContentEvent(recorded);
    switch (event.type) {
      // Live, a content that starts over finds its earlier attempts' points purged already (the
      // purge worker's, chunks.projection.ts); these deletions find nothing then. Replayed, with
      // no purge to come, they drop them: at an attempt's first chunks, past a completed attempt's
      // last chunk (an earlier attempt had more), and all of them when the content failed for good.
      case 'knowledge.ContentProcessingCompleted':
        context.write({ op: 'deleteWhere', collections: [event.data.collectionId], filter: { content_id: event.data.contentId, chunk_index: { $gte: event.data.chunkCount } } });
        return;
      case 'knowledge.ContentProcessingFailed':
        if (event.data.retryAt === null) context.write({ op: 'deleteWhere', collections: [event.data.collectionId], filter: { content_id: event.data.contentId } });
        return;
      case 'knowledge.ContentChunksAdded': {
        const d = event.data;
        await context.ensureIndex(d.index);
        if (d.chunks[0]?.chunkIndex === 0) context.write({ op: 'deleteWhere', collections: [d.collectionId], filter: { content_id: d.contentId } });
        const points = [];
        for (const c of d.chunks) {
          const text = await texts.open(d.contentId, c.text);
          points.push(chunkPoint({ id: c.chunkId, collectionId: d.collectionId, contentId: d.contentId, chunkIndex: c.chunkIndex, text, source: d.source, metadata: chunkMetadata(d.metadata, c), vector: decodeVector(c.vector) }));
        }
        context.write({ op: 'upsert', index: d.index.name, points });
        return;
      }
      case 'knowledge.ChunkEdited': {
        const d = event.data;
        if (d.vector === null) {
          context.write({ op: 'setPayload', index: d.index, ids: [d.chunkId], payload: { metadata: d.metadata as JsonObject, tags: tagsOf(d.metadata) } });
        } else {
          const text = await texts.open(d.contentId, d.text);
          const point = chunkPoint({ id: d.chunkId, collectionId: d.collectionId, contentId: d.contentId, chunkIndex: d.chunkIndex, text, source: d.source, metadata: d.metadata, vector: decodeVector(d.vector) });
          context.write({ op: 'upsert', index: d.index, points: [point] });
        }
        return;
      }
      case 'knowledge.ChunkDeleted':
        context.write({ op: 'deleteWhere', collections: [event.data.collectionId], filter: { content_id: event.data.contentId, chunk_index: event.data.chunkIndex } });
        return;
      default:
        return;
    }
  },
});
