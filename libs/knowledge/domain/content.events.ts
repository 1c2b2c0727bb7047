import { z } from 'zod';
import { EmbeddingModel } from './collection.events';
import { ContentText } from './content-text';

const Json = z.record(z.string(), z.unknown());

/**
 * An uploaded file as it came, kept beside its text (README: "Original files"): it arrives in
 * `parts` pieces after the content is added, each sealed under the content's key in the blob
 * store; `knowledge.ContentOriginalKept` says they are all in.
 */
export const OriginalFile = z.object({ name: z.string(), contentType: z.string(), sizeBytes: z.number().int(), parts: z.number().int().min(1) });
export type OriginalFile = z.infer<typeof OriginalFile>;

/**
 * The text is extracted at upload. A long text arrives in `parts` events (this one holds the
 * first), so that no event or message exceeds what EventStoreDB appends (1 MiB) and NATS
 * carries (1 MiB) by default.
 */
export const ContentAdded = z.object({
  type: z.literal('knowledge.ContentAdded'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    workspaceId: z.string(),
    name: z.string(),
    source: z.string().nullable(),
    mimeType: z.string(),
    metadata: Json,
    text: ContentText,
    /** UTF-8 bytes of this first part (a sealed text does not tell; absent in plain events). */
    textBytes: z.number().int().optional(),
    /** UTF-8 bytes of the whole text. */
    sizeBytes: z.number().int(),
    /** How many parts the text comes in (absent in events written before parts existed: 1). */
    parts: z.number().int().min(1).optional(),
    /** The uploaded file, when it is to be kept (absent for a JSON text, or a file over the limit). */
    original: OriginalFile.optional(),
    createdBy: z.string(),
    createdAt: z.string(),
  }),
});

/** The next part of a long text; processing starts once the last one is in. */
export const ContentTextAppended = z.object({
  type: z.literal('knowledge.ContentTextAppended'),
  data: z.object({ contentId: z.string(), part: z.number().int().min(1), text: ContentText, /** UTF-8 bytes of the part (absent in plain events). */ bytes: z.number().int().optional() }),
});

/**
 * A worker claimed the content for one attempt, until `leaseUntil` unless it renews. Any
 * chunks of earlier attempts are dropped here. Records the settings the attempt uses.
 */
export const ContentProcessingStarted = z.object({
  type: z.literal('knowledge.ContentProcessingStarted'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    attempt: z.number().int(),
    leaseId: z.string(),
    leaseUntil: z.string(),
    chunkSize: z.number().int(),
    chunkOverlap: z.number().int(),
    embedding: EmbeddingModel,
    startedAt: z.string(),
  }),
});

export const ContentLeaseRenewed = z.object({
  type: z.literal('knowledge.ContentLeaseRenewed'),
  data: z.object({ contentId: z.string(), leaseId: z.string(), leaseUntil: z.string() }),
});

export const ChunkPosition = z.object({
  chunkId: z.string(),
  chunkIndex: z.number().int(),
  text: ContentText,
  /** UTF-16 offsets in the content's text, and tokens as the model counts them. */
  start: z.number().int(),
  end: z.number().int(),
  tokens: z.number().int(),
  /** Little-endian float32, base64. */
  vector: z.string(),
});
export type ChunkPosition = z.infer<typeof ChunkPosition>;

/** A batch of embedded chunks of the current attempt; each chunk's metadata is the content's plus its position. */
export const ContentChunksAdded = z.object({
  type: z.literal('knowledge.ContentChunksAdded'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    workspaceId: z.string(),
    attempt: z.number().int(),
    index: z.object({ name: z.string(), dimensions: z.number().int(), distance: z.literal('cosine') }),
    contentName: z.string(),
    source: z.string().nullable(),
    metadata: Json,
    chunks: z.array(ChunkPosition),
    addedAt: z.string(),
  }),
});

export const ContentProcessingCompleted = z.object({
  type: z.literal('knowledge.ContentProcessingCompleted'),
  data: z.object({ contentId: z.string(), collectionId: z.string(), attempt: z.number().int(), chunkCount: z.number().int(), completedAt: z.string() }),
});

/** `retryAt` set: a transient failure, tried again then; null: the content is `failed`. */
export const ContentProcessingFailed = z.object({
  type: z.literal('knowledge.ContentProcessingFailed'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    attempt: z.number().int(),
    error: z.string(),
    retryAt: z.string().nullable(),
    failedAt: z.string(),
  }),
});

/**
 * Processing starts over. With `text`, from a text extracted again from the kept original (it
 * replaces the content's text, in `parts` like an upload's); without, from the stored text.
 */
export const ContentReprocessRequested = z.object({
  type: z.literal('knowledge.ContentReprocessRequested'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    requestedBy: z.string(),
    requestedAt: z.string(),
    text: z.object({ first: ContentText, firstBytes: z.number().int(), sizeBytes: z.number().int(), parts: z.number().int().min(1) }).optional(),
  }),
});

/** Every part of the uploaded file is stored: it can be downloaded, and reprocessing reads it. */
export const ContentOriginalKept = z.object({
  type: z.literal('knowledge.ContentOriginalKept'),
  data: z.object({ contentId: z.string(), file: OriginalFile, keptAt: z.string() }),
});

/** The original's parts are deleted: its retention ended (KNOWLEDGE_ORIGINALS_RETENTION_DAYS). The text stays. */
export const ContentOriginalDiscarded = z.object({
  type: z.literal('knowledge.ContentOriginalDiscarded'),
  data: z.object({ contentId: z.string(), reason: z.literal('retention'), discardedAt: z.string() }),
});

/**
 * A user's edit of one chunk, carrying the chunk as it now is. `vector` is set when the text
 * changed (embedded before the edit is recorded), null when only the metadata did.
 */
export const ChunkEdited = z.object({
  type: z.literal('knowledge.ChunkEdited'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    chunkId: z.string(),
    chunkIndex: z.number().int(),
    /** The collection's vector index at the time: where the point is updated. */
    index: z.string(),
    source: z.string().nullable(),
    text: ContentText,
    metadata: Json,
    /** Little-endian float32, base64. */
    vector: z.string().nullable(),
    editedBy: z.string(),
    editedAt: z.string(),
  }),
});

export const ChunkDeleted = z.object({
  type: z.literal('knowledge.ChunkDeleted'),
  data: z.object({ contentId: z.string(), collectionId: z.string(), chunkId: z.string(), chunkIndex: z.number().int(), deletedAt: z.string() }),
});

export const ContentDeleted = z.object({
  type: z.literal('knowledge.ContentDeleted'),
  data: z.object({
    contentId: z.string(),
    collectionId: z.string(),
    workspaceId: z.string(),
    /** `collection`: deleted with its collection. */
    cause: z.enum(['request', 'collection']),
    deletedAt: z.string(),
  }),
});

export const ContentEvent = z.discriminatedUnion('type', [
  ContentAdded,
  ContentTextAppended,
  ContentProcessingStarted,
  ContentLeaseRenewed,
  ContentChunksAdded,
  ContentProcessingCompleted,
  ContentProcessingFailed,
  ContentReprocessRequested,
  ContentOriginalKept,
  ContentOriginalDiscarded,
  ChunkEdited,
  ChunkDeleted,
  ContentDeleted,
]);
export type ContentEvent = z.infer<typeof ContentEvent>;

export const CONTENT_STREAM_PREFIX = 'knowledge-content-';
export const contentStreamId = (contentId: string): string => `${CONTENT_STREAM_PREFIX}${contentId}`;

/** A chunk's id names its content, so a chunk command finds its stream without a lookup. */
export const chunkIdOf = (contentId: string, chunkIndex: number): string => `${contentId}_c${chunkIndex}`;
export function contentIdOfChunk(chunkId: string): string | null {
  const at = chunkId.lastIndexOf('_c');
  if (at <= 0 || !/^\d+$/.test(chunkId.slice(at + 2))) return null;
  return chunkId.slice(0, at);
}
