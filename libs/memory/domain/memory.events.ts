import { z } from 'zod';

/**
 * Memory domain events. `content` is the sealed (AES-256-GCM, per-memory key) JSON of
 * { memory, topics, metadata }: the event log never holds memory text in the clear, so
 * shredding the key makes a deleted memory unreadable wherever its events still lie.
 */
/** Stored memory types; the public enum lives in the contracts, which must stay stable on their own. */
export const MEMORY_TYPES = ['user', 'agent', 'team', 'workflow'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/**
 * Why a memory changed when a model decided it (memory extraction), or when a user undid such
 * a decision: the decision's id, the source messages (ids only, never their text), the model
 * and the prompt version. `note` is sealed with the memory's key like its content: the fact the
 * model proposed and its reason are the user's data, and go with the memory when it is erased.
 */
export const DECISIONS = ['add', 'update', 'invalidate', 'none', 'undo'] as const;
export type Decision = (typeof DECISIONS)[number];
export const Provenance = z.object({
  decisionId: z.string(),
  decision: z.enum(DECISIONS),
  /** What decided before the model was asked: a duplicate check, or the model itself. */
  check: z.enum(['exact_duplicate', 'near_duplicate', 'no_similar_memory', 'model', 'user']),
  extractionId: z.string().nullable(),
  conversationId: z.string().nullable(),
  sourceMessageIds: z.array(z.string()),
  model: z.string().nullable(),
  promptVersion: z.string().nullable(),
  /** The decision this one undoes (decision `undo`). */
  undoes: z.string().nullable(),
  /** Sealed `{ fact, reason, similarity }`. */
  note: z.string(),
});
export type Provenance = z.infer<typeof Provenance>;

export const MemoryCreated = z.object({
  type: z.literal('memory.MemoryCreated'),
  data: z.object({
    memoryId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    memoryType: z.enum(MEMORY_TYPES),
    content: z.string(),
    createdAt: z.string(),
    /** When it leaves reads and is erased (absent: never). */
    expiresAt: z.string().nullish(),
    provenance: Provenance.optional(),
  }),
});

export const MemoryReplaced = z.object({
  type: z.literal('memory.MemoryReplaced'),
  data: z.object({
    memoryId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    version: z.number().int(),
    content: z.string(),
    replacedAt: z.string(),
    provenance: Provenance.optional(),
  }),
});

/** No longer true: kept with its history, out of lists and search, until reinstated or deleted. */
export const MemoryInvalidated = z.object({
  type: z.literal('memory.MemoryInvalidated'),
  data: z.object({ memoryId: z.string(), workspaceId: z.string(), userId: z.string(), version: z.number().int(), invalidatedAt: z.string(), provenance: Provenance }),
});

/** An invalidation undone: the memory is live again. */
export const MemoryReinstated = z.object({
  type: z.literal('memory.MemoryReinstated'),
  data: z.object({ memoryId: z.string(), workspaceId: z.string(), userId: z.string(), version: z.number().int(), reinstatedAt: z.string(), provenance: Provenance }),
});

/** A proposed fact the memory already holds (decision `none`): recorded, nothing changes. */
export const MemoryMatched = z.object({
  type: z.literal('memory.MemoryMatched'),
  data: z.object({ memoryId: z.string(), workspaceId: z.string(), userId: z.string(), matchedAt: z.string(), provenance: Provenance }),
});

export const MemoryDeleted = z.object({
  type: z.literal('memory.MemoryDeleted'),
  data: z.object({
    memoryId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    deletedAt: z.string(),
    /** `expired`: its `expires_at` passed (the sweep deleted it); absent: a caller deleted it. */
    reason: z.literal('expired').optional(),
  }),
});

export const MemoryEvent = z.discriminatedUnion('type', [MemoryCreated, MemoryReplaced, MemoryInvalidated, MemoryReinstated, MemoryMatched, MemoryDeleted]);
export type MemoryCreated = z.infer<typeof MemoryCreated>;
export type MemoryReplaced = z.infer<typeof MemoryReplaced>;
export type MemoryDeleted = z.infer<typeof MemoryDeleted>;
export type MemoryInvalidated = z.infer<typeof MemoryInvalidated>;
export type MemoryEvent = z.infer<typeof MemoryEvent>;

export const MEMORY_STREAM_PREFIX = 'memory-';
export const memoryStreamId = (memoryId: string): string => `${MEMORY_STREAM_PREFIX}${memoryId}`;
