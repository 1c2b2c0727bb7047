import { z } from 'zod';

/**
 * Memory domain events. `content` is the sealed (AES-256-GCM, per-memory key) JSON of
 * { memory, topics, metadata }: the event log never holds memory text in the clear, so
 * shredding the key makes a deleted memory unreadable wherever its events still lie.
 */
/** Stored memory types; the public enum lives in the contracts, which must stay stable on their own. */
export const MEMORY_TYPES = ['user', 'agent', 'team', 'workflow'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

export const MemoryCreated = z.object({
  type: z.literal('memory.MemoryCreated'),
  data: z.object({
    memoryId: z.string(),
    workspaceId: z.string(),
    userId: z.string(),
    memoryType: z.enum(MEMORY_TYPES),
    content: z.string(),
    createdAt: z.string(),
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
  }),
});

export const MemoryDeleted = z.object({
  type: z.literal('memory.MemoryDeleted'),
  data: z.object({ memoryId: z.string(), workspaceId: z.string(), userId: z.string(), deletedAt: z.string() }),
});

export const MemoryEvent = z.discriminatedUnion('type', [MemoryCreated, MemoryReplaced, MemoryDeleted]);
export type MemoryCreated = z.infer<typeof MemoryCreated>;
export type MemoryReplaced = z.infer<typeof MemoryReplaced>;
export type MemoryDeleted = z.infer<typeof MemoryDeleted>;
export type MemoryEvent = z.infer<typeof MemoryEvent>;

export const MEMORY_STREAM_PREFIX = 'memory-';
export const memoryStreamId = (memoryId: string): string => `${MEMORY_STREAM_PREFIX}${memoryId}`;
