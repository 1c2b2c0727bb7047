import { z } from 'zod';
import { RerankOptionsInput, RerankOutcome, RerankScore } from '@lore/platform/kernel';
import { CONTENT_STATUSES, SEARCH_TYPES, VISIBILITIES } from './knowledge.config';

const Json = z.record(z.string(), z.unknown());

export const EmbeddingConfig = z
  .object({
    provider: z.string().describe('`local` (ONNX in-process) or `openai-compatible`'),
    model: z.string(),
    dimensions: z.number().int(),
    distance: z.enum(['cosine']),
    max_input_tokens: z.number().int().describe('Tokens of a chunk the model reads'),
  })
  .meta({ id: 'EmbeddingConfig' });
export type EmbeddingConfig = z.infer<typeof EmbeddingConfig>;

export const CollectionSettings = z
  .object({
    chunk_size: z.number().int().describe('Most tokens per chunk, as the embedding model counts them'),
    chunk_overlap: z.number().int().describe('Tokens repeated from the end of the previous chunk'),
    rerank: RerankOptionsInput.nullable().optional().describe('Default re-ranking of this collection\'s searches'),
  })
  .catchall(z.unknown())
  .meta({ id: 'CollectionSettings' });

export const CollectionStats = z
  .object({
    content_count: z.number().int(),
    chunk_count: z.number().int(),
    total_bytes: z.number().int().describe('UTF-8 bytes of the contents\' text'),
  })
  .meta({ id: 'CollectionStats' });

/** SPEC §2.2. */
export const CollectionRecord = z
  .object({
    id: z.string(),
    name: z.string(),
    workspace_id: z.string(),
    description: z.string().nullable(),
    store_type: z.string(),
    visibility: z.enum(VISIBILITIES),
    status: z.string(),
    tags: z.array(z.string()),
    parent_id: z.string().nullable(),
    stats: CollectionStats,
    meta_data: Json,
    settings: CollectionSettings,
    embedding: EmbeddingConfig,
    /** While a model change re-indexes: the model being indexed; searches use `embedding` until it completes. */
    pending_embedding: EmbeddingConfig.nullable(),
    source_type: z.string().nullable(),
    source_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
    created_by: z.string(),
  })
  .meta({ id: 'CollectionRecord' });
export type CollectionRecord = z.infer<typeof CollectionRecord>;

/** The content record (SPEC §2.8 leaves it open; fields as R2R and Dify users expect). */
export const ContentRecord = z
  .object({
    id: z.string(),
    collection_id: z.string(),
    workspace_id: z.string(),
    name: z.string(),
    source: z.string().nullable(),
    mime_type: z.string(),
    size: z.number().int().describe('UTF-8 bytes of the extracted text'),
    metadata: Json,
    status: z.enum(CONTENT_STATUSES),
    error: z.string().nullable().describe('Why the last attempt failed'),
    attempts: z.number().int().describe('Processing attempts started so far'),
    chunk_count: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    processed_at: z.string().nullable(),
    created_by: z.string(),
    original: z
      .object({ file_name: z.string(), content_type: z.string(), size: z.number().int().describe('Bytes of the file') })
      .nullable()
      .describe('The uploaded file, kept and downloadable at /api/v1/contents/{id}/file; null for a JSON text, a file over KNOWLEDGE_ORIGINALS_MAX_BYTES, or once its retention ended'),
  })
  .meta({ id: 'ContentRecord' });
export type ContentRecord = z.infer<typeof ContentRecord>;

/** The chunk record (SPEC §2.6 names the fields' meaning; these are their names). */
export const ChunkRecord = z
  .object({
    id: z.string(),
    content_id: z.string(),
    collection_id: z.string(),
    content: z.string(),
    metadata: Json,
    chunk_index: z.number().int(),
    size_bytes: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
    embedding: z.array(z.number()).optional().describe('Only with include_embedding=true'),
  })
  .meta({ id: 'ChunkRecord' });
export type ChunkRecord = z.infer<typeof ChunkRecord>;

const LegScore = z.object({ score: z.number(), rank: z.number().int().nullable().describe('Rank in that retriever\'s own list; null when it did not list the chunk and its score was computed for fusion') });

/** SPEC §2.7, plus where the passage sits and how each retriever scored it. */
export const SearchResult = z
  .object({
    content: z.string(),
    score: z.number(),
    metadata: Json,
    content_id: z.string(),
    source: z.string().nullable(),
    chunk_id: z.string(),
    chunk_index: z.number().int(),
    content_name: z.string().nullable(),
    scores: z.object({
      vector: LegScore.nullable(),
      keyword: LegScore.nullable(),
      retrieval: LegScore.optional().describe("Re-ranked searches: the retrieval's own score and rank (`score` is then the reranker's)"),
      rerank: RerankScore.optional().describe("Re-ranked searches: the reranker's relevance score and the rank it gave"),
    }),
  })
  .meta({ id: 'SearchResult' });
export type SearchResult = z.infer<typeof SearchResult>;

export const SearchResponse = z
  .object({
    results: z.array(SearchResult),
    total_results: z.number().int(),
    query: z.string(),
    search_type: z.enum(SEARCH_TYPES),
    collection_id: z.string(),
    execution_time_ms: z.number().nullable(),
    rerank: RerankOutcome.nullable().describe('The re-ranking step, when the query or the collection asked for one'),
  })
  .meta({ id: 'SearchResponse' });
export type SearchResponse = z.infer<typeof SearchResponse>;
