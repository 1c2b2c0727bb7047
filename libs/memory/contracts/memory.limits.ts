/**
 * The spec leaves memory sizes open (SPEC §8); these are Lore's, configurable through the
 * environment variables named in the README.
 */
export interface MemoryLimits {
  readonly maxMemoryChars: number;
  readonly maxTopics: number;
  readonly maxTopicChars: number;
  readonly maxMetadataBytes: number;
}

export const DEFAULT_MEMORY_LIMITS: MemoryLimits = {
  maxMemoryChars: 10_000,
  maxTopics: 20,
  maxTopicChars: 100,
  maxMetadataBytes: 16 * 1024,
};

export const MEMORY_TYPES = ['user', 'agent', 'team', 'workflow'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];
