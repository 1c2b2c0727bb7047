import { z } from 'zod';
import { envInt, envOptional, quotaEnv, workspaceLimitsEnv, WorkspaceQuota } from '@lore/platform/kernel';

/**
 * A user or group id for reader processes: decimal digits, 1 to 2³¹ − 1 (what spawn takes);
 * unset or empty: none. Never 0, root, which is what an empty value would coerce to.
 */
const readerId = envOptional.transform((value, context) => {
  if (value === undefined) return undefined;
  const id = Number(value);
  if (/^\d+$/.test(value) && id >= 1 && id <= 2 ** 31 - 1) return id;
  context.addIssue({ code: 'custom', message: 'must be a numeric user or group id from 1 to 2147483647 (not root)' });
  return z.NEVER;
});

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
    /**
     * Contents processed at once by one knowledge service. Four, not one per embedding worker:
     * an attempt spends much of its time between embeddings (its claim and its chunks committed
     * with an fsync each, its text tokenized), and with two at a time the two local embedding
     * workers sat idle 35-40 % of an ingestion of small contents (CPU profile, bench:ingest);
     * with four, about 20 %. They still share the model in turns, text by text.
     */
    KNOWLEDGE_WORKERS: envInt(4),
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
    // Text extraction of uploads (reader processes); each limit names itself in the 422 it causes.
    /** Reader processes that extract text from files, per process that reads them (the gateway; the knowledge service for reprocessing). */
    KNOWLEDGE_EXTRACT_WORKERS: envInt(2),
    /** Uploads waiting for a worker beyond those being extracted; more are refused with 503. */
    KNOWLEDGE_EXTRACT_QUEUE: envInt(16),
    /**
     * Uploads of one workspace being extracted or waiting, per gateway process; more are refused
     * with 429 (Retry-After), so that one workspace's files cannot fill the queue for all (a
     * quarter of it by default), while a client uploading a few files in parallel is not refused.
     */
    KNOWLEDGE_EXTRACT_PER_WORKSPACE: envInt(4),
    /** Wall-clock time one file may take once a worker has it (the worker is then ended and replaced), and twice that is the longest a file waits for one (then 503). */
    KNOWLEDGE_EXTRACT_TIMEOUT_MS: envInt(15_000),
    /** A worker's JavaScript heap (V8 old generation); a file that needs more ends its worker. */
    KNOWLEDGE_EXTRACT_MAX_MEMORY_MB: envInt(512),
    /**
     * The user (and group) reader processes run as, e.g. 65534 (nobody); unset: the service's own.
     * Then a reader can neither signal the service nor read its files, whatever a parser is made
     * to do. Needs a service started as root.
     */
    KNOWLEDGE_EXTRACT_UID: readerId,
    /** Defaults to KNOWLEDGE_EXTRACT_UID. */
    KNOWLEDGE_EXTRACT_GID: readerId,
    /** Nesting of HTML elements and of JSON arrays and objects. */
    KNOWLEDGE_EXTRACT_MAX_DEPTH: envInt(512),
    /** Sum of the uncompressed sizes of a DOCX's (ZIP's) entries, checked before anything is inflated. */
    KNOWLEDGE_EXTRACT_MAX_UNZIPPED_BYTES: envInt(64 * 1024 * 1024),
    /** Entries in a DOCX's ZIP directory. */
    KNOWLEDGE_EXTRACT_MAX_ZIP_ENTRIES: envInt(10_000),
    /** Uncompressed ÷ compressed size of one ZIP entry over 1 MiB (XML compresses 5–20×; bombs 1000×). */
    KNOWLEDGE_EXTRACT_MAX_ZIP_RATIO: envInt(100),
    /** Records of a CSV file. */
    KNOWLEDGE_EXTRACT_MAX_CSV_ROWS: envInt(1_000_000),
    /** Fields of one CSV record. */
    KNOWLEDGE_EXTRACT_MAX_CSV_COLUMNS: envInt(10_000),
    /** Pages of a PDF. */
    KNOWLEDGE_EXTRACT_MAX_PDF_PAGES: envInt(5_000),
    /** Characters of extracted text (CSV and JSON repeat headers and paths, so text can outgrow the file). */
    KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS: envInt(32_000_000),
    /** Uploaded files up to this size are kept (sealed) beside their text, downloadable and re-extractable; 0 keeps none. */
    KNOWLEDGE_ORIGINALS_MAX_BYTES: envInt(20 * 1024 * 1024),
    /** Days an original is kept after its upload (then deleted; its text stays); 0: as long as its content. */
    KNOWLEDGE_ORIGINALS_RETENTION_DAYS: envInt(0),
  })
  .superRefine((e, context) => {
    // Checked at start-up: otherwise every upload would get 503, each reader failing to start (EPERM).
    const uid = process.getuid?.();
    if (e.KNOWLEDGE_EXTRACT_UID !== undefined && uid !== 0) {
      context.addIssue({ code: 'custom', path: ['KNOWLEDGE_EXTRACT_UID'], message: `needs the service to run as root (it runs as uid ${uid ?? 'unknown'})` });
    }
    if (e.KNOWLEDGE_EXTRACT_GID !== undefined && e.KNOWLEDGE_EXTRACT_UID === undefined) {
      context.addIssue({ code: 'custom', path: ['KNOWLEDGE_EXTRACT_GID'], message: 'is only used with KNOWLEDGE_EXTRACT_UID' });
    }
  })
  .transform((e) => ({
    maxUploadBytes: e.KNOWLEDGE_MAX_UPLOAD_BYTES,
    originals: { maxBytes: e.KNOWLEDGE_ORIGINALS_MAX_BYTES, retentionDays: e.KNOWLEDGE_ORIGINALS_RETENTION_DAYS },
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
    extraction: {
      workers: e.KNOWLEDGE_EXTRACT_WORKERS,
      queue: e.KNOWLEDGE_EXTRACT_QUEUE,
      perWorkspace: e.KNOWLEDGE_EXTRACT_PER_WORKSPACE,
      timeoutMs: e.KNOWLEDGE_EXTRACT_TIMEOUT_MS,
      maxMemoryMb: e.KNOWLEDGE_EXTRACT_MAX_MEMORY_MB,
      runAs: e.KNOWLEDGE_EXTRACT_UID === undefined ? null : { uid: e.KNOWLEDGE_EXTRACT_UID, gid: e.KNOWLEDGE_EXTRACT_GID ?? e.KNOWLEDGE_EXTRACT_UID },
      limits: {
        maxDepth: e.KNOWLEDGE_EXTRACT_MAX_DEPTH,
        maxUnzippedBytes: e.KNOWLEDGE_EXTRACT_MAX_UNZIPPED_BYTES,
        maxZipEntries: e.KNOWLEDGE_EXTRACT_MAX_ZIP_ENTRIES,
        maxZipRatio: e.KNOWLEDGE_EXTRACT_MAX_ZIP_RATIO,
        maxCsvRows: e.KNOWLEDGE_EXTRACT_MAX_CSV_ROWS,
        maxCsvColumns: e.KNOWLEDGE_EXTRACT_MAX_CSV_COLUMNS,
        maxPdfPages: e.KNOWLEDGE_EXTRACT_MAX_PDF_PAGES,
        maxTextChars: e.KNOWLEDGE_EXTRACT_MAX_TEXT_CHARS,
      },
    },
  }));
export type KnowledgeConfig = z.output<typeof knowledgeConfig>;

export const CONTENT_STATUSES = ['new', 'processing', 'completed', 'failed'] as const;
export type ContentStatus = (typeof CONTENT_STATUSES)[number];
export const SEARCH_TYPES = ['vector', 'keyword', 'hybrid'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
export const VISIBILITIES = ['private', 'public'] as const;
