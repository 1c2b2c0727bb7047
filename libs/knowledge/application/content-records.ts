import type { ChunkRecord, ContentRecord } from '@lore/knowledge/contracts';
import type { ChunkDoc, ContentDoc } from './knowledge.read-models';

export function toContentRecord(doc: ContentDoc): ContentRecord {
  const { lease_until: _lease, retry_at: _retry, original_kept_at: _kept, ...record } = doc;
  // Documents written before originals were kept have no `original`.
  return { ...record, original: record.original ?? null };
}

export function toChunkRecord(doc: ChunkDoc, embedding?: readonly number[]): ChunkRecord {
  return {
    id: doc.id,
    content_id: doc.content_id,
    collection_id: doc.collection_id,
    content: doc.content,
    metadata: doc.metadata,
    chunk_index: doc.chunk_index,
    size_bytes: doc.size_bytes,
    created_at: doc.created_at,
    updated_at: doc.updated_at,
    ...(embedding === undefined ? {} : { embedding: [...embedding] }),
  };
}
