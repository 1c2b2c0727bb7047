import { z } from 'zod';
import { ContentText } from './content-text';

/** The embedding model a collection's vectors come from, and the vector index holding them. */
export const EmbeddingModel = z.object({
  provider: z.string(),
  model: z.string(),
  dimensions: z.number().int(),
  distance: z.literal('cosine'),
  maxInputTokens: z.number().int(),
  /** Vector index name: one per model, shared by every collection using it (partitioned by collection). */
  index: z.string(),
});
export type EmbeddingModel = z.infer<typeof EmbeddingModel>;

const Json = z.record(z.string(), z.unknown());

/** What users set on a collection (SPEC §2.2); `settings` holds at least the chunking numbers. */
export const CollectionProperties = z.object({
  name: z.string(),
  description: z.string().nullable(),
  storeType: z.string(),
  visibility: z.enum(['private', 'public']),
  status: z.string(),
  tags: z.array(z.string()),
  parentId: z.string().nullable(),
  metaData: Json,
  settings: z.object({ chunk_size: z.number().int(), chunk_overlap: z.number().int() }).catchall(z.unknown()),
  sourceType: z.string().nullable(),
  sourceId: z.string().nullable(),
});
export type CollectionProperties = z.infer<typeof CollectionProperties>;

export const CollectionCreated = z.object({
  type: z.literal('knowledge.CollectionCreated'),
  data: CollectionProperties.extend({
    collectionId: z.string(),
    workspaceId: z.string(),
    embedding: EmbeddingModel,
    createdBy: z.string(),
    createdAt: z.string(),
  }),
});

/** Only the properties that changed. */
export const CollectionUpdated = z.object({
  type: z.literal('knowledge.CollectionUpdated'),
  data: z.object({ collectionId: z.string(), workspaceId: z.string(), changes: CollectionProperties.partial(), updatedAt: z.string() }),
});

/** A model change: searches keep `from` until the re-index completes. */
export const CollectionReindexStarted = z.object({
  type: z.literal('knowledge.CollectionReindexStarted'),
  data: z.object({ collectionId: z.string(), workspaceId: z.string(), reindexId: z.string(), from: EmbeddingModel, to: EmbeddingModel, startedAt: z.string() }),
});

/**
 * Vectors of existing chunks under the new model, written to its index beside the old one.
 * Vectors are little-endian float32, base64: the log carries what the index holds, so the
 * index is rebuildable without the model (the same holds for `knowledge.ContentChunksAdded`).
 */
export const CollectionChunksReindexed = z.object({
  type: z.literal('knowledge.CollectionChunksReindexed'),
  data: z.object({
    collectionId: z.string(),
    reindexId: z.string(),
    index: z.object({ name: z.string(), dimensions: z.number().int(), distance: z.literal('cosine') }),
    chunks: z.array(
      z.object({
        chunkId: z.string(),
        contentId: z.string(),
        chunkIndex: z.number().int(),
        /** Sealed under its content's key, as in the content's own events. */
        text: ContentText,
        source: z.string().nullable(),
        tags: z.array(z.string()),
        metadata: Json,
        vector: z.string(),
      }),
    ),
  }),
});

/** The switch: from here on searches use the new index, and the old one's points of the collection go. */
export const CollectionReindexCompleted = z.object({
  type: z.literal('knowledge.CollectionReindexCompleted'),
  data: z.object({ collectionId: z.string(), reindexId: z.string(), from: EmbeddingModel, to: EmbeddingModel, completedAt: z.string() }),
});

export const CollectionDeleted = z.object({
  type: z.literal('knowledge.CollectionDeleted'),
  data: z.object({ collectionId: z.string(), workspaceId: z.string(), deletedAt: z.string() }),
});

export const CollectionEvent = z.discriminatedUnion('type', [
  CollectionCreated,
  CollectionUpdated,
  CollectionReindexStarted,
  CollectionChunksReindexed,
  CollectionReindexCompleted,
  CollectionDeleted,
]);
export type CollectionEvent = z.infer<typeof CollectionEvent>;

export const COLLECTION_STREAM_PREFIX = 'knowledge-collection-';
export const collectionStreamId = (collectionId: string): string => `${COLLECTION_STREAM_PREFIX}${collectionId}`;
