import { z } from 'zod';
import { envInt, quotaEnv, workspaceLimitsEnv, WorkspaceQuota } from '@lore/platform/kernel';

/**
 * The spec leaves memory sizes open (SPEC §8); these are Lore's, read from the environment
 * variables below (README, Configuration). The memory service and the gateway both read
 * them, and both enforce them.
 */
export interface MemoryLimits {
  readonly maxMemoryChars: number;
  readonly maxTopics: number;
  readonly maxTopicChars: number;
  readonly maxMetadataBytes: number;
}

export const memoryConfig = z
  .object({
    MEMORY_MAX_CHARS: envInt(10_000),
    MEMORY_MAX_TOPICS: envInt(20),
    MEMORY_TOPIC_MAX_CHARS: envInt(100),
    MEMORY_METADATA_MAX_BYTES: envInt(16 * 1024),
    /** Memories a workspace may hold (every user's together); 0 is unlimited. */
    QUOTA_MEMORIES: quotaEnv(100_000),
    LORE_WORKSPACE_LIMITS: workspaceLimitsEnv,
  })
  .transform((e): { limits: MemoryLimits; quota: WorkspaceQuota } => ({
    quota: new WorkspaceQuota('memories', 'QUOTA_MEMORIES', e.QUOTA_MEMORIES, e.LORE_WORKSPACE_LIMITS),
    limits: {
      maxMemoryChars: e.MEMORY_MAX_CHARS,
      maxTopics: e.MEMORY_MAX_TOPICS,
      maxTopicChars: e.MEMORY_TOPIC_MAX_CHARS,
      maxMetadataBytes: e.MEMORY_METADATA_MAX_BYTES,
    },
  }));
export type MemoryConfig = z.output<typeof memoryConfig>;

export const MEMORY_TYPES = ['user', 'agent', 'team', 'workflow'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
