/** How Lore's points sit in a Qdrant collection: vector names and the payload. */
import type { Schemas } from '@qdrant/js-client-rest';
import type { PointPayload, StoredPoint } from '@lore/platform/vectors/port';

export const DENSE = 'dense';
export const SPARSE = 'bm25';

/** A point's payload in Qdrant: the port's payload plus Lore's string id, the collection and the text. */
export interface StoredPayload extends PointPayload {
  readonly point_id: string;
  readonly collection_id: string;
  readonly text: string;
}

export function toStored(payload: Schemas['Payload'] | Record<string, unknown> | null | undefined): StoredPoint | null {
  if (!payload || typeof payload.point_id !== 'string') return null;
  const stored = payload as unknown as Partial<StoredPayload> & { point_id: string };
  return {
    id: stored.point_id,
    collectionId: stored.collection_id ?? '',
    text: stored.text ?? '',
    payload: { content_id: stored.content_id ?? '', chunk_index: stored.chunk_index ?? 0, source: stored.source ?? null, tags: stored.tags ?? [], metadata: stored.metadata ?? {} },
  };
}
