import { z } from 'zod';
import { envInt } from '@lore/platform/kernel';

/**
 * The knowledge context's limits and processing policy, from the environment (README,
 * Configuration). The service and the gateway read the same slice.
 */
export const knowledgeConfig = z
  .object({
    /** An upload's bytes, and a JSON content's text bytes (SPEC leaves it open; 20 MB like most RAG services). */
    KNOWLEDGE_MAX_UPLOAD_BYTES: envInt(20 * 1024 * 1024),
    /** How long one processing attempt may take before it is abandoned. */
    KNOWLEDGE_PROCESSING_TIMEOUT_MS: envInt(10 * 60_000),
    /** Attempts before a content whose processing keeps failing for a transient reason is `failed`. */
    KNOWLEDGE_PROCESSING_ATTEMPTS: envInt(3),
    /** A worker's claim on a content; renewed by heartbeats while it works, taken over once it lapses. */
    KNOWLEDGE_LEASE_MS: envInt(60_000),
    /** Contents processed at once by one knowledge service. */
    KNOWLEDGE_WORKERS: envInt(2),
  })
  .transform((e) => ({
    maxUploadBytes: e.KNOWLEDGE_MAX_UPLOAD_BYTES,
    processing: {
      timeoutMs: e.KNOWLEDGE_PROCESSING_TIMEOUT_MS,
      maxAttempts: e.KNOWLEDGE_PROCESSING_ATTEMPTS,
      leaseMs: e.KNOWLEDGE_LEASE_MS,
      workers: e.KNOWLEDGE_WORKERS,
    },
  }));
export type KnowledgeConfig = z.output<typeof knowledgeConfig>;

export const CONTENT_STATUSES = ['new', 'processing', 'completed', 'failed'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
export const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
export const VISIBILITIES = ['private', 'public'] as const;
