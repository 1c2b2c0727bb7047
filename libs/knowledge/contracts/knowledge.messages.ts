import { z } from 'zod';
import { defineMessage, FusionOptionsInput, RerankOutcome, RerankRequestInput, VectorFilterInput } from '@lore/platform/kernel';
import { CONTENT_STATUSES, SEARCH_TYPES, VISIBILITIES } from './knowledge.config';
import { ChunkId, collectionProperties, CollectionId, contentFields, ContentId, jsonObject } from './knowledge.fields';
import { ChunkRecord, CollectionRecord, ContentRecord, SearchResult } from './knowledge.records';

/**
 * Who acts, where, and which collections they may touch: an API key's `collections` list
 * (null: every collection of the workspace). Resolved by the gateway from the credential;
 * the service applies it to every message, so a collection outside it is "not found".
 */
export const KnowledgeScope = z.object({
  workspaceId: z.string().min(1).max(255),
  actor: z.string().min(1).max(300),
  collections: z.array(CollectionId).max(10_000).nullable(),
});
export type KnowledgeScope = z.infer<typeof KnowledgeScope>;

export const SearchRequestFields = {
  query: z.string().min(1).max(10_000),
  collection_id: CollectionId,
  search_type: z.enum(SEARCH_TYPES).default('hybrid'),
  filters: VectorFilterInput.nullish().describe('Filter grammar of the README: metadata.<key>, content_id, source, tags, chunk_index with $eq $ne $in $nin $gt $gte $lt $lte $exists $and $or $not'),
  max_results: z.number().int().min(1).max(100).default(10),
  fusion: FusionOptionsInput.nullish(),
  rerank: RerankRequestInput.nullish().describe("Re-rank the hits (README: Re-ranking); default: the collection's `settings.rerank`; `false` skips that"),
};

const Ref = KnowledgeScope;
const collectionRef = Ref.extend({ collectionId: CollectionId });
const contentRef = Ref.extend({ contentId: ContentId });
const chunkRef = Ref.extend({ chunkId: ChunkId });
/**
 * A deletion's reply. `erasing`: the deletion is stored, but its erasure (the read models and
 * indexes dropping it, its key shredded, its stream deleted) did not finish within the wait; it
 * goes on by itself (the gateway's 202). Absent or false: erased when answered.
 */
const Deleted = z.object({ erasing: z.boolean().optional() });

/**
 * Most characters of text in one message: at most 4 UTF-8 bytes each, a part stays under the
 * 1 MiB that NATS carries and EventStoreDB appends by default, with room for the envelope.
 */
export const CONTENT_PART_CHARS = 200_000;

/** Bytes of an original file per message: one part, well below NATS's 1 MiB once in base64. */
export const ORIGINAL_PART_BYTES = 512 * 1024;

export function knowledgeMessages(limits: { readonly maxUploadBytes: number }) {
  return {
    createCollection: defineMessage('knowledge.command.create-collection', Ref.extend(collectionProperties), CollectionRecord),
    updateCollection: defineMessage(
      'knowledge.command.update-collection',
      collectionRef.extend({ ...collectionProperties, name: collectionProperties.name.optional() }),
      CollectionRecord,
    ),
    deleteCollection: defineMessage('knowledge.command.delete-collection', collectionRef, Deleted.extend({ collectionId: z.string() })),
    getCollection: defineMessage('knowledge.query.get-collection', collectionRef, CollectionRecord),
    /** Whether a content could be added to the collection now (its 404 and quota 403s), asked before a file is read for it. */
    admitContent: defineMessage('knowledge.query.admit-content', collectionRef, z.object({ collectionId: z.string() })),
    listCollections: defineMessage(
      'knowledge.query.list-collections',
      Ref.extend({
        skip: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(100),
        status: z.string().max(50).optional(),
        visibility: z.enum(VISIBILITIES).optional(),
        search: z.string().min(1).max(255).optional(),
        tags: z.array(z.string().max(100)).max(50).optional(),
      }),
      z.object({ items: z.array(CollectionRecord), total: z.number().int() }),
    ),

    createContent: defineMessage(
      'knowledge.command.create-content',
      Ref.extend({
        collectionId: CollectionId,
        ...contentFields,
        /** The whole text, or its first part when `parts` > 1 (see `appendContentText`). */
        text: z.string().min(1).max(CONTENT_PART_CHARS),
        mimeType: z.string().min(1).max(255),
        parts: z.number().int().min(1).max(10_000).default(1),
        /** UTF-8 bytes of the whole text; required with parts (default: the text's). */
        sizeBytes: z.number().int().min(1).max(limits.maxUploadBytes, { message: `Text must be at most ${limits.maxUploadBytes} bytes` }).optional(),
        /** The uploaded file to keep, sent next in `parts` pieces of ORIGINAL_PART_BYTES (`putContentOriginalPart`). */
        original: z
          .object({ name: z.string().max(1000), contentType: z.string().min(1).max(255), sizeBytes: z.number().int().min(1).max(limits.maxUploadBytes), parts: z.number().int().min(1).max(10_000) })
          .optional(),
      }),
      ContentRecord,
    ),
    /** Part `part` (0-based) of a content's declared original file, base64; the last one marks it kept. */
    putContentOriginalPart: defineMessage(
      'knowledge.command.put-content-original-part',
      contentRef.extend({ part: z.number().int().min(0).max(9_999), data: z.base64().max(Math.ceil(ORIGINAL_PART_BYTES / 3) * 4) }),
      z.object({ contentId: z.string(), kept: z.boolean() }),
    ),
    /** Part `part` (0-based) of a kept original, base64, with the file's description. */
    getContentOriginalPart: defineMessage(
      'knowledge.query.get-content-original-part',
      contentRef.extend({ part: z.number().int().min(0).max(9_999) }),
      z.object({ name: z.string(), contentType: z.string(), sizeBytes: z.number().int(), parts: z.number().int(), data: z.string() }),
    ),
    /** Part `part` (1-based after the first) of a long text; the last one makes the content ready to process. */
    appendContentText: defineMessage(
      'knowledge.command.append-content-text',
      contentRef.extend({ part: z.number().int().min(1).max(10_000), text: z.string().min(1).max(CONTENT_PART_CHARS) }),
      ContentRecord,
    ),
    deleteContent: defineMessage('knowledge.command.delete-content', contentRef, Deleted.extend({ contentId: z.string() })),
    reprocessContent: defineMessage('knowledge.command.reprocess-content', contentRef, ContentRecord),
    getContent: defineMessage('knowledge.query.get-content', contentRef, ContentRecord),
    listContents: defineMessage(
      'knowledge.query.list-contents',
      Ref.extend({
        collectionId: CollectionId.optional(),
        status: z.enum(CONTENT_STATUSES).optional(),
        skip: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(100),
        sortBy: z.enum(['created_at', 'updated_at', 'name', 'size']).default('created_at'),
        sortOrder: z.enum(['asc', 'desc']).default('desc'),
      }),
      z.object({ items: z.array(ContentRecord), total: z.number().int() }),
    ),

    getChunk: defineMessage('knowledge.query.get-chunk', chunkRef.extend({ includeEmbedding: z.boolean().default(false) }), ChunkRecord),
    listChunks: defineMessage(
      'knowledge.query.list-chunks',
      Ref.extend({
        collectionId: CollectionId.optional(),
        contentId: ContentId.optional(),
        cursor: z.string().min(1).max(500).optional(),
        limit: z.number().int().min(1).max(500).default(50),
        includeEmbedding: z.boolean().default(false),
      }),
      z.object({ items: z.array(ChunkRecord), nextCursor: z.string().nullable() }),
    ),
    updateChunk: defineMessage(
      'knowledge.command.update-chunk',
      chunkRef.extend({ content: z.string().min(1).max(100_000).optional(), metadata: jsonObject.optional() }),
      ChunkRecord,
    ),
    deleteChunk: defineMessage('knowledge.command.delete-chunk', chunkRef, z.object({ chunkId: z.string() })),

    search: defineMessage(
      'knowledge.query.search',
      Ref.extend({
        query: SearchRequestFields.query,
        collectionId: CollectionId,
        searchType: SearchRequestFields.search_type,
        filters: SearchRequestFields.filters,
        maxResults: SearchRequestFields.max_results,
        fusion: SearchRequestFields.fusion,
        rerank: SearchRequestFields.rerank,
      }),
      // The hits and the time; the edge shapes the HTTP reply (SearchResponse), as memory search does.
      z.object({ results: z.array(SearchResult), executionTimeMs: z.number(), rerank: RerankOutcome.nullable() }),
    ),
  };
}
export type KnowledgeMessages = ReturnType<typeof knowledgeMessages>;
