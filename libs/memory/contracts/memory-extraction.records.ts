import { z } from 'zod';
import { MemoryRecord } from './memory.records';

/** What one extraction decided about one proposed fact. */
export const ExtractionDecision = z
  .object({
    decision_id: z.string().nullable().describe('Null only for a fact that was not kept (no memory to record it on)'),
    decision: z.enum(['add', 'update', 'invalidate', 'none']),
    check: z.enum(['exact_duplicate', 'near_duplicate', 'no_similar_memory', 'model']),
    fact: z.string(),
    reason: z.string().nullable(),
    similarity: z.number().nullable().describe('Cosine similarity to the closest live memory, when there was one'),
    memory_id: z.string().nullable().describe('The memory added, updated, invalidated or matched'),
    memory: MemoryRecord.nullable().describe('That memory after the decision'),
  })
  .meta({ id: 'ExtractionDecision' });
export type ExtractionDecision = z.infer<typeof ExtractionDecision>;

export const ExtractionReply = z.object({
  extraction_id: z.string(),
  model: z.string(),
  prompt_version: z.string(),
  source_message_ids: z.array(z.string()),
  decisions: z.array(ExtractionDecision),
  dropped_facts: z.number().int().describe('Facts past MEMORY_EXTRACTION_MAX_FACTS, not considered'),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }).describe('Tokens the chat model reported for this extraction'),
});
export type ExtractionReply = z.infer<typeof ExtractionReply>;
