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
    status: z.enum(['active', 'superseded']).describe('`superseded`: invalidated by a memory-extraction decision (or an add undone); out of lists and search, its history kept'),
    expires_at: z.string().nullable().describe('When it leaves lists and search and is erased; null: never'),
  })
  .meta({ id: 'MemoryRecord' });
export type MemoryRecord = z.infer<typeof MemoryRecord>;

/** Why a memory changed when a model decided it (memory extraction), or an undo reverted such a decision. */
export const MemoryDecision = z
  .object({
    decision_id: z.string().describe('What `POST /api/v1/memories/{memory_id}/decisions/{decision_id}/undo` takes'),
    decision: z.enum(['add', 'update', 'invalidate', 'none', 'undo']),
    check: z
      .enum(['exact_duplicate', 'near_duplicate', 'no_similar_memory', 'model', 'user'])
      .describe('What decided: a duplicate check before any model, no similar memory to compare with (added), the model, or a user (undo)'),
    extraction_id: z.string().nullable(),
    conversation_id: z.string().nullable(),
    source_message_ids: z.array(z.string()),
    model: z.string().nullable(),
    prompt_version: z.string().nullable(),
    undoes: z.string().nullable().describe('The decision an undo reverted'),
    fact: z.string().nullable().describe('The fact the model proposed'),
    reason: z.string().nullable().describe("The model's reason"),
    similarity: z.number().nullable().describe('Cosine similarity to the closest memory, when one was compared'),
  })
  .meta({ id: 'MemoryDecision' });
export type MemoryDecision = z.infer<typeof MemoryDecision>;

export const MemoryVersion = z
  .object({
    version: z.number().int().describe('1 for the first version, then one more per change'),
    event: z.enum(['created', 'replaced', 'invalidated', 'reinstated']),
    memory: z.string(),
    topics: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    recorded_at: z.string(),
    decision: MemoryDecision.nullable().describe('Why it changed, when memory extraction decided it; null for a change a client made'),
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
