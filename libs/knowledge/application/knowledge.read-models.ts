import type { CollectionRecord, ContentRecord, ChunkRecord } from '@lore/knowledge/contracts';
import type { EmbeddingModel } from '@lore/knowledge/domain';

/** A collection's document: its record, plus the models the service needs. */
export type CollectionDoc = Omit<CollectionRecord, 'embedding' | 'pending_embedding'> & {
  readonly model: EmbeddingModel;
  readonly pending_model: EmbeddingModel | null;
  readonly [field: string]: unknown;
};

/** A content's document: its record, plus the processing clock the sweeper reads. */
export type ContentDoc = Omit<ContentRecord, 'original'> & {
  /** Absent in documents written before originals were kept. */
  readonly original?: ContentRecord['original'];
  /** While processing: until when its worker holds it. */
  readonly lease_until: string | null;
  /** After a transient failure: when it is tried again. */
  readonly retry_at: string | null;
  /** When the original was kept in full (the retention sweep reads it); null without one. */
  readonly original_kept_at?: string | null;
  readonly [field: string]: unknown;
};

export type ChunkDoc = Omit<ChunkRecord, 'embedding'> & {
  readonly workspace_id: string;
  readonly content_name: string;
  readonly source: string | null;
  readonly [field: string]: unknown;
};

export const COLLECTIONS = 'collections';
export const CONTENTS = 'contents';
export const CHUNKS = 'chunks';
