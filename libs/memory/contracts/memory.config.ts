import { z } from 'zod';
import { envInt, envOptional, quotaEnv, workspaceLimitsEnv, WorkspaceQuota } from '@lore/platform/kernel';

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

export const MEMORY_TYPES = ['user', 'agent', 'team', 'workflow'] as const;
export type MemoryType = (typeof MEMORY_TYPES)[number];

/** Memory extraction's thresholds (README, "Memory extraction"). */
export interface MemoryExtractionSettings {
  /** Cosine similarity at or above which a proposed fact is a near duplicate of a memory: decided `none` without the model. */
  readonly duplicateSimilarity: number;
  /** The user's most similar memories the model compares a fact with. */
  readonly candidates: number;
  /** Most facts taken from one extraction (the rest are dropped, and the reply says so). */
  readonly maxFacts: number;
  /** Most conversation messages (the latest) one extraction reads. */
  readonly maxMessages: number;
  /** How long one extraction may take, all its model calls included (it outlasts REQUEST_TIMEOUT_MS). */
  readonly timeoutMs: number;
}

/** `MEMORY_TTL_BY_TYPE`: `type=seconds` pairs, comma-separated (`workflow=86400,agent=604800`). */
const ttlByType = envOptional.transform((text, ctx): Partial<Record<MemoryType, number>> => {
  const ttl: Partial<Record<MemoryType, number>> = {};
  for (const entry of (text ?? '').split(',').map((e) => e.trim()).filter((e) => e !== '')) {
    const [type, seconds] = entry.split('=').map((part) => part.trim());
    const value = Number(seconds);
    if (!(MEMORY_TYPES as readonly string[]).includes(type ?? '') || !Number.isInteger(value) || value <= 0) {
      ctx.addIssue({ code: 'custom', message: `"${entry}" is not <memory type>=<seconds> (types: ${MEMORY_TYPES.join(', ')})` });
      return z.NEVER;
    }
    ttl[type as MemoryType] = value;
  }
  return ttl;
});

const similarity = z.coerce.number<string | undefined>().min(0).max(1);

export const memoryConfig = z
  .object({
    MEMORY_MAX_CHARS: envInt(10_000),
    MEMORY_MAX_TOPICS: envInt(20),
    MEMORY_TOPIC_MAX_CHARS: envInt(100),
    MEMORY_METADATA_MAX_BYTES: envInt(16 * 1024),
    /** Memories a workspace may hold (every user's together); 0 is unlimited. */
    QUOTA_MEMORIES: quotaEnv(100_000),
    LORE_WORKSPACE_LIMITS: workspaceLimitsEnv,
    MEMORY_TTL_BY_TYPE: ttlByType,
    /** How often expired memories are looked for and deleted. */
    MEMORY_EXPIRY_SWEEP_SECONDS: envInt(60),
    MEMORY_EXTRACTION_DUPLICATE_SIMILARITY: envOptional.pipe(similarity.default(0.95)),
    MEMORY_EXTRACTION_CANDIDATES: envOptional.pipe(z.coerce.number<string | undefined>().int().min(1).max(20).default(5)),
    MEMORY_EXTRACTION_MAX_FACTS: envOptional.pipe(z.coerce.number<string | undefined>().int().min(1).max(100).default(20)),
    MEMORY_EXTRACTION_MAX_MESSAGES: envOptional.pipe(z.coerce.number<string | undefined>().int().min(1).max(1000).default(50)),
    MEMORY_EXTRACTION_TIMEOUT_MS: envInt(300_000),
  })
  .transform((e) => ({
    quota: new WorkspaceQuota('memories', 'QUOTA_MEMORIES', e.QUOTA_MEMORIES, e.LORE_WORKSPACE_LIMITS),
    limits: {
      maxMemoryChars: e.MEMORY_MAX_CHARS,
      maxTopics: e.MEMORY_MAX_TOPICS,
      maxTopicChars: e.MEMORY_TOPIC_MAX_CHARS,
      maxMetadataBytes: e.MEMORY_METADATA_MAX_BYTES,
    } satisfies MemoryLimits,
    ttlSecondsByType: e.MEMORY_TTL_BY_TYPE,
    expirySweepMs: e.MEMORY_EXPIRY_SWEEP_SECONDS * 1000,
    extraction: {
      duplicateSimilarity: e.MEMORY_EXTRACTION_DUPLICATE_SIMILARITY,
      candidates: e.MEMORY_EXTRACTION_CANDIDATES,
      maxFacts: e.MEMORY_EXTRACTION_MAX_FACTS,
      maxMessages: e.MEMORY_EXTRACTION_MAX_MESSAGES,
      timeoutMs: e.MEMORY_EXTRACTION_TIMEOUT_MS,
    } satisfies MemoryExtractionSettings,
  }));
export type MemoryConfig = z.output<typeof memoryConfig>;
