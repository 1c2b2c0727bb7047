import { z } from 'zod';
import { RerankScore } from '@lore/platform/kernel';
import { MEMORY_TYPES } from './memory.config';

/** A memory as the API shows it (SPEC §2.8), also the reply of the memory messages. */
export const MemoryRecord = z
  .object({
    memory_id: z.string(),
    user_id: z.string(),
    memory: z.string(),
    memory_type: z.enum(MEMORY_TYPES),
    topics: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.string().describe('ISO 8601 date-time'),
    updated_at: z.string().describe('ISO 8601 date-time'),
  })
  .meta({ id: 'MemoryRecord' });
export type MemoryRecord = z.infer<typeof MemoryRecord>;

export const MemoryVersion = z
  .object({
    version: z.number().int().describe('1 for the first version, then one more per replacement'),
    event: z.enum(['created', 'replaced']),
    memory: z.string(),
    topics: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    recorded_at: z.string(),
  })
  .meta({ id: 'MemoryVersion' });
export type MemoryVersion = z.infer<typeof MemoryVersion>;

export const MemoryWithHistory = MemoryRecord.extend({ history: z.array(MemoryVersion) });
export type MemoryWithHistory = z.infer<typeof MemoryWithHistory>;

const LegScore = z.object({ score: z.number(), rank: z.number().int().nullable() });

/** A memory found by search, with its fused score and how each retriever scored it. */
export const MemorySearchHit = z
  .object({
    memory: MemoryRecord,
    score: z.number(),
    scores: z.object({
      vector: LegScore.nullable(),
      keyword: LegScore.nullable(),
      retrieval: LegScore.optional().describe("Re-ranked searches: the hybrid search's own score and rank (`score` is then the reranker's)"),
      rerank: RerankScore.optional().describe("Re-ranked searches: the reranker's relevance score and the rank it gave"),
    }),
  })
  .meta({ id: 'MemorySearchHit' });
export type MemorySearchHit = z.infer<typeof MemorySearchHit>;
