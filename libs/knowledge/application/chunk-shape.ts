import type { JsonObject, PointPayload, VectorPoint } from '@lore/platform/vectors/port';
import type { ChunkPosition } from '@lore/knowledge/domain';

/** Float32 little-endian, base64: how vectors travel in events (a third of JSON numbers' size). */
export function encodeVector(vector: Float32Array): string {
  return Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).toString('base64');
}

export function decodeVector(encoded: string): Float32Array {
  const bytes = Buffer.from(encoded, 'base64');
  const copy = new Uint8Array(bytes); // aligned for the float view
  return new Float32Array(copy.buffer, 0, copy.byteLength / 4);
}

/** A chunk's metadata: its content's, plus where it sits (these keys win over the content's). */
export function chunkMetadata(contentMetadata: Record<string, unknown>, chunk: Pick<ChunkPosition, 'start' | 'end' | 'tokens'>): Record<string, unknown> {
  return { ...contentMetadata, chunk_start: chunk.start, chunk_end: chunk.end, chunk_tokens: chunk.tokens };
}

/** The `tags` filter field: the content's `metadata.tags`, when it is a list of strings. */
export function tagsOf(metadata: Record<string, unknown>): string[] {
  const tags = metadata['tags'];
  return Array.isArray(tags) ? tags.filter((t): t is string => typeof t === 'string') : [];
}

export interface ChunkPointInput { id: string; collectionId: string; contentId: string; chunkIndex: number; text: string; source: string | null; metadata: Record<string, unknown>; vector: Float32Array }

export function chunkPoint(input: ChunkPointInput): VectorPoint {
  const payload: PointPayload = {
    content_id: input.contentId,
    chunk_index: input.chunkIndex,
    source: input.source,
    tags: tagsOf(input.metadata),
    metadata: input.metadata as JsonObject,
  };
  return { id: input.id, collectionId: input.collectionId, vector: input.vector, text: input.text, payload };
}
