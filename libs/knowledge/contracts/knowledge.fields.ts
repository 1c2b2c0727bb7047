import { z } from 'zod';
import { jsonDepth, MAX_JSON_DEPTH, RerankOptionsInput } from '@lore/platform/kernel';
import { VISIBILITIES } from './knowledge.config';

/** JSON objects users attach (metadata, meta_data, settings): bounded in depth and size. */
export const MAX_METADATA_BYTES = 64 * 1024;
export const jsonObject = z
  .record(z.string(), z.unknown())
  .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, { message: `Must nest at most ${MAX_JSON_DEPTH} levels` })
  .refine((value) => jsonDepth(value) > MAX_JSON_DEPTH || Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, {
    message: `Must be at most ${MAX_METADATA_BYTES} bytes of JSON`,
  });

const tag = z.string().min(1).max(100);
export const MAX_TAGS = 50;
export const CollectionId = z.string().min(1).max(100);
export const ContentId = z.string().min(1).max(100);
export const ChunkId = z.string().min(1).max(150);

/** The settings a collection's chunking reads; other keys are kept as given. */
export const settingsInput = z
  .object({
    chunk_size: z.number().int().min(16).max(8192).optional().describe('Most tokens per chunk; at most the model\'s max_input_tokens (default: that maximum)'),
    chunk_overlap: z.number().int().min(0).max(4096).optional().describe('Tokens repeated from the previous chunk; less than half of chunk_size (default 32)'),
    rerank: RerankOptionsInput.nullable().optional().describe("The collection's default re-ranking of its searches (a query's `rerank` overrides it field by field; `false` there skips it); null removes it"),
  })
  .catchall(z.unknown())
  .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, { message: `Must nest at most ${MAX_JSON_DEPTH} levels` });

export const embeddingInput = z
  .object({
    provider: z.string().min(1).max(100).optional().describe('`local` (default) or `openai-compatible` when configured'),
    model: z.string().min(1).max(200).optional(),
    dimensions: z.number().int().min(1).max(8192).optional().describe('Checked against the model when given'),
    distance: z.enum(['cosine']).optional(),
  })
  .describe('Which configured embedding model the collection uses; omitted fields take the default model\'s');

/** Collection fields shared by create and update (SPEC §2.2, §8). */
export const collectionFields = {
  name: z.string().min(1).max(100),
  description: z.string().max(255).nullish(),
  store_type: z.string().min(1).max(50).nullish().describe('Free label; default `vector`'),
  visibility: z.enum(VISIBILITIES).nullish().describe('Default `private`'),
  status: z.string().min(1).max(50).nullish().describe('Default `active`'),
  tags: z.array(tag).max(MAX_TAGS).nullish(),
  parent_id: CollectionId.nullish().describe('A collection of the same workspace'),
  meta_data: jsonObject.nullish(),
  settings: settingsInput.nullish(),
  embedding: embeddingInput.nullish(),
  source_type: z.string().min(1).max(50).nullish().describe('Free label; default `document`'),
  source_id: z.string().min(1).max(255).nullish(),
  stats: z.record(z.string(), z.unknown()).nullish().describe('Ignored: stats are computed'),
};

/**
 * The same fields as a collection message carries them (camelCase, like every message field;
 * the edge maps the body's snake_case names). `settings` keeps the API's keys: it is a JSON
 * object the collection stores and shows as given. `stats` is the API's alone (ignored).
 */
export const collectionProperties = {
  name: collectionFields.name,
  description: collectionFields.description,
  storeType: collectionFields.store_type,
  visibility: collectionFields.visibility,
  status: collectionFields.status,
  tags: collectionFields.tags,
  parentId: collectionFields.parent_id,
  metaData: collectionFields.meta_data,
  settings: collectionFields.settings,
  embedding: collectionFields.embedding,
  sourceType: collectionFields.source_type,
  sourceId: collectionFields.source_id,
};

/** A content's name, at most: also the longest file name an upload may carry (it becomes the name). */
export const MAX_CONTENT_NAME_CHARS = 255;

export const contentFields = {
  name: z.string().min(1).max(MAX_CONTENT_NAME_CHARS),
  metadata: jsonObject.nullish(),
  source: z.string().min(1).max(2048).nullish().describe('Where the text came from: a URL, a path'),
};
