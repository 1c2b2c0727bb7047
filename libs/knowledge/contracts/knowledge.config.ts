import { z } from 'zod';
import { envInt, quotaEnv, workspaceLimitsEnv, WorkspaceQuota } from '@lore/platform/kernel';

/**
 * The knowledge context's limits and processing policy, from the environment (README,
 * Configuration). The service and the gateway read the same slice.
 */
export const knowledgeConfig = z
  .object({
    /** An upload's bytes, and a JSON content's text bytes (SPEC leaves it open; 20 MB like most RAG services). */
    KNOWLEDGE_MAX_UPLOAD_BYTES: envInt(20 * 1024 * 1024),
    /**
     * How long a processing attempt may go without progress (its text chunked, a batch of chunks
     * embedded and recorded) before it is abandoned as `failed` ("timed out"): a hung provider.
     * Not a bound on the whole attempt, which for a large text on the local model takes longer.
     */
    KNOWLEDGE_PROCESSING_TIMEOUT_MS: envInt(10 * 60_000),
    /** Attempts before a content whose processing keeps failing for a transient reason is `failed`. */
    KNOWLEDGE_PROCESSING_ATTEMPTS: envInt(3),
    /** A worker's claim on a content; renewed by heartbeats while it works, taken over once it lapses. */
    KNOWLEDGE_LEASE_MS: envInt(60_000),
    /** Contents processed at once by one knowledge service. */
    KNOWLEDGE_WORKERS: envInt(2),
    /**
     * First wait before retrying a transient failure; each further retry waits 4 × longer
     * (capped at 5 min). Configurable so that tests and impatient operators need not wait 2 s.
     */
    KNOWLEDGE_RETRY_BASE_MS: envInt(2_000),
    /** Bytes of text (the contents' `size`) a workspace may hold; 0 is unlimited. */
    QUOTA_CONTENT_BYTES: quotaEnv(10 * 1024 ** 3),
    /** Chunks a workspace may hold: a content is refused once they are reached; 0 is unlimited. */
    QUOTA_CHUNKS: quotaEnv(1_000_000),
    LORE_WORKSPACE_LIMITS: workspaceLimitsEnv,
  })
  .transform((e) => ({
    maxUploadBytes: e.KNOWLEDGE_MAX_UPLOAD_BYTES,
    quotas: {
      contentBytes: new WorkspaceQuota('content_bytes', 'QUOTA_CONTENT_BYTES', e.QUOTA_CONTENT_BYTES, e.LORE_WORKSPACE_LIMITS),
      chunks: new WorkspaceQuota('chunks', 'QUOTA_CHUNKS', e.QUOTA_CHUNKS, e.LORE_WORKSPACE_LIMITS),
    },
    processing: {
      timeoutMs: e.KNOWLEDGE_PROCESSING_TIMEOUT_MS,
      maxAttempts: e.KNOWLEDGE_PROCESSING_ATTEMPTS,
      leaseMs: e.KNOWLEDGE_LEASE_MS,
      workers: e.KNOWLEDGE_WORKERS,
      retryBaseMs: e.KNOWLEDGE_RETRY_BASE_MS,
    },
  }));
export type KnowledgeConfig = z.output<typeof knowledgeConfig>;

export const CONTENT_STATUSES = ['new', 'processing', 'completed', 'failed'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
export const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
export const VISIBILITIES = ['private', 'public'] as const;
