import { z } from 'zod';
import { defineMessage, jsonDepth, MAX_JSON_DEPTH, RerankOptionsInput, RerankOutcome } from '@lore/platform/kernel';
import { MEMORY_TYPES, type MemoryLimits } from './memory.config';
import { MemoryDecision, MemoryRecord, MemorySearchHit, MemoryVersion, MemoryWithHistory } from './memory.records';
import { ExtractionReply } from './memory-extraction.records';

/** Who acts and for whom: resolved by the gateway from the credential (ARCHITECTURE §4). */
const Scope = z.object({
  workspaceId: z.string().min(1).max(255),
  userId: z.string().min(1).max(255),
  /** `user:<sub>` or `api_key:<id>`, recorded in event metadata for audit. */
  actor: z.string().min(1).max(300),
});

const MemoryId = z.string().min(1).max(100);

/** The user-written fields with the configured limits: one definition for the messages and the HTTP bodies. */
export function memoryFields(limits: MemoryLimits) {
  const memory = z.string().min(1).max(limits.maxMemoryChars);
  const topics = z.array(z.string().min(1).max(limits.maxTopicChars)).max(limits.maxTopics);
  const metadata = z
    .record(z.string(), z.unknown())
    .refine((value) => jsonDepth(value) <= MAX_JSON_DEPTH, { message: `Metadata must nest at most ${MAX_JSON_DEPTH} levels` })
    .refine((value) => jsonDepth(value) > MAX_JSON_DEPTH || Buffer.byteLength(JSON.stringify(value)) <= limits.maxMetadataBytes, {
      message: `Metadata must be at most ${limits.maxMetadataBytes} bytes of JSON`,
    });
  return { memory, topics, metadata };
}

/**
 * The memory service's messages. Requests carry the configured limits, so the service
 * enforces them for every caller on the transport, not only behind the gateway.
 */
export function memoryMessages(limits: MemoryLimits) {
  const { memory, topics, metadata } = memoryFields(limits);
  const ref = Scope.extend({ memoryId: MemoryId });

  return {
    create: defineMessage(
      'memory.command.create',
      Scope.extend({
        memory,
        memoryType: z.enum(MEMORY_TYPES),
        topics: topics.nullish(),
        metadata: metadata.nullish(),
        /** Absent: the type's TTL (MEMORY_TTL_BY_TYPE) applies, if any; null: never expires. */
        expiresAt: z.iso.datetime({ offset: true }).nullish(),
      }),
      MemoryRecord,
    ),
    /** `topics` / `metadata` null or absent keep the current ones. */
    replace: defineMessage(
      'memory.command.replace',
      ref.extend({ memory, topics: topics.nullish(), metadata: metadata.nullish() }),
      z.object({ oldMemory: MemoryRecord, newMemory: MemoryRecord }),
    ),
    /** Permanent: answered once the memory is erased. Repeating it while erasure is pending completes it. */
    delete: defineMessage('memory.command.delete', ref, z.object({ memoryId: z.string(), erasing: z.boolean().optional() })),
    deleteAllOfUser: defineMessage('memory.command.delete-all-of-user', Scope, z.object({ deletedCount: z.number().int(), erasing: z.boolean().optional() })),
    get: defineMessage('memory.query.get', ref, MemoryRecord),
    list: defineMessage(
      'memory.query.list',
      Scope.extend({
        memoryType: z.enum(MEMORY_TYPES).optional(),
        topics: z.array(z.string().max(limits.maxTopicChars)).max(limits.maxTopics).optional(),
        search: z.string().min(1).max(1000).optional(),
        sortBy: z.enum(['created_at', 'updated_at']).default('created_at'),
        sortOrder: z.enum(['asc', 'desc']).default('desc'),
        skip: z.number().int().min(0).default(0),
        limit: z.number().int().min(1).max(1000).default(100),
        /** Keyset paging; takes precedence over skip. */
        cursor: z.string().min(1).max(2000).optional(),
      }),
      z.object({ items: z.array(MemoryRecord), total: z.number().int(), nextCursor: z.string().nullable() }),
    ),
    /** Hybrid (vector + BM25) over the user's own memories only. */
    search: defineMessage(
      'memory.query.search',
      Scope.extend({
        query: z.string().min(1).max(10_000),
        memoryType: z.enum(MEMORY_TYPES).optional(),
        topics: z.array(z.string().max(limits.maxTopicChars)).max(limits.maxTopics).optional(),
        limit: z.number().int().min(1).max(100).default(10),
        rerank: RerankOptionsInput.nullish(),
      }),
      z.object({ results: z.array(MemorySearchHit), executionTimeMs: z.number(), rerank: RerankOutcome.nullable() }),
    ),
    history: defineMessage('memory.query.history', ref, z.object({ versions: z.array(MemoryVersion) })),
    /**
     * Memory extraction: the chat model proposes facts from the messages; each is checked for
     * duplicates, compared with the user's most similar memories and decided (README, "Memory extraction").
     */
    extract: defineMessage(
      'memory.command.extract',
      Scope.extend({
        messages: z
          .array(z.object({ id: z.string().min(1).max(200).nullish(), role: z.string().min(1).max(50), content: z.string().min(1).max(100_000) }))
          .min(1)
          .max(1000)
          .nullish(),
        /** Without `messages`: the service reads this conversation's active path (the user's, else not found). */
        conversationId: z.string().min(1).max(200).nullish(),
        memoryType: z.enum(MEMORY_TYPES).default('user'),
      }),
      ExtractionReply,
    ),
    /** Reverts a memory's latest model decision by a new event. */
    undoDecision: defineMessage(
      'memory.command.undo-decision',
      ref.extend({ decisionId: z.string().min(1).max(100) }),
      z.object({ memory: MemoryRecord, decision: MemoryDecision }),
    ),
    export: defineMessage('memory.query.export', Scope, z.object({ exportedAt: z.string(), memories: z.array(MemoryWithHistory) })),
  };
}
export type MemoryMessages = ReturnType<typeof memoryMessages>;
