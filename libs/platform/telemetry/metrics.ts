import { timingSafeEqual } from 'node:crypto';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's Prometheus metrics (`GET /metrics`). One registry per process, so the
 * gateway and every service expose what they themselves do. Labels are bounded sets: route
 * templates (never raw URLs), message names, error codes, processor and model names; no
 * workspace, user or content id appears in a label, except the hashed workspace of the
 * ingestion queue depth (metric-sources.ts says why that one is bounded).
 */
export const metricsRegistry = new Registry();

/** Node's own metrics (CPU, memory, event-loop lag, GC, handles), once per process. */
let defaultsCollected = false;
export function collectProcessMetrics(): void {
  if (defaultsCollected) return;
  defaultsCollected = true;
  collectDefaultMetrics({ register: metricsRegistry });
}

/** Request latency buckets: from a cache hit (1 ms) to the gateway's longest budgets. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequestDuration = new Histogram({
  name: 'lore_http_request_duration_seconds',
  help: 'HTTP requests served by the gateway, by method, route template and status code.',
  labelNames: ['method', 'route', 'status'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const transportRequestDuration = new Histogram({
  name: 'lore_transport_request_duration_seconds',
  help: 'Request/reply messages between the gateway and the context services: client side (sent) and server side (served), by message subject and outcome (ok or the error code).',
  labelNames: ['side', 'subject', 'outcome'] as const,
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
});

export const embeddingTexts = new Counter({
  name: 'lore_embedding_texts_total',
  help: 'Texts embedded, by provider, model and kind (document or query).',
  labelNames: ['provider', 'model', 'kind'] as const,
  registers: [metricsRegistry],
});

export const embeddingCharacters = new Counter({
  name: 'lore_embedding_characters_total',
  help: 'Characters (UTF-16 code units) of the texts embedded, by provider, model and kind.',
  labelNames: ['provider', 'model', 'kind'] as const,
  registers: [metricsRegistry],
});

export const embeddingDuration = new Histogram({
  name: 'lore_embedding_duration_seconds',
  help: 'Time of one embedding call (a batch of documents, or a query), by provider, model, kind and outcome.',
  labelNames: ['provider', 'model', 'kind', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  registers: [metricsRegistry],
});

export const extractionFiles = new Counter({
  name: 'lore_extraction_files_total',
  help: 'Uploaded files through the extraction pool, by outcome: ok; unreadable (malformed or over a content limit: 422); deadline, memory, crash (the reader process ended with it: 422); refused (the workspace or the queue at capacity: 429 or 503); unavailable (no reader could take it: 503); failed (a reader bug: 500).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const largeJsonBodies = new Counter({
  name: 'lore_large_json_bodies_total',
  help: 'JSON request bodies of 1 MiB or more, read on the gateway\'s body reader thread in turns by workspace, by outcome: ok; invalid (422); refused (the workspace or the queue at capacity, or waited too long: 429 or 503); unavailable (the reader thread failed or the gateway closed: 503); failed (a reader bug: 500).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const extractionReadersEnded = new Counter({
  name: 'lore_extraction_readers_ended_total',
  help: 'Extraction reader processes that ended, by reason (deadline, memory, unavailable, crash) and whether a file was in them; an idle reader that ends is a crash without a file.',
  labelNames: ['reason', 'with_file'] as const,
  registers: [metricsRegistry],
});

export const chatTokens = new Counter({
  name: 'lore_chat_tokens_total',
  help: 'Tokens of chat-model calls as the server counted them (its `usage`), by provider, model and kind (prompt or completion).',
  labelNames: ['provider', 'model', 'kind'] as const,
  registers: [metricsRegistry],
});

export const chatCalls = new Counter({
  name: 'lore_chat_calls_total',
  help: 'Chat-model calls, by provider, model and outcome (ok, or why it failed: timeout, rate_limited, server_error, network, refused, malformed_output).',
  labelNames: ['provider', 'model', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const chatDuration = new Histogram({
  name: 'lore_chat_duration_seconds',
  help: 'Time of one chat-model call, retries included, by provider, model and outcome.',
  labelNames: ['provider', 'model', 'outcome'] as const,
  buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  registers: [metricsRegistry],
});

const rateLimitRefusals = new Counter({
  name: 'lore_rate_limit_refusals_total',
  help: 'Requests the gateway refused with 429 by a request-rate limit, by scope: caller (the API key, or the user of a JWT) or workspace.',
  labelNames: ['scope'] as const,
  registers: [metricsRegistry],
});

/** Counts one 429. `scope` is the rate policy that refused (`caller` or `workspace`), never the tenant. */
export function countRateLimitRefusal(scope: 'caller' | 'workspace'): void {
  rateLimitRefusals.inc({ scope });
}

const quotaRefusals = new Counter({
  name: 'lore_quota_refusals_total',
  help: 'Writes refused (403) because a workspace storage quota was reached, counted by the service that owns the data, by quota: content_bytes, chunks, memories or conversations.',
  labelNames: ['quota'] as const,
  registers: [metricsRegistry],
});

/** Counts one storage-quota refusal; `quota` is the quota's name (a fixed set of four), never the tenant. */
export function countQuotaRefusal(quota: string): void {
  quotaRefusals.inc({ quota });
}

const webhookDispatchSkipped = new Counter({
  name: 'lore_webhook_dispatch_skipped_total',
  help: 'Event-feed entries the webhook dispatcher stepped past after failing on them for a reason of their own: no delivery was recorded for them (each is logged with its event id, type and workspace).',
  registers: [metricsRegistry],
});

/** Counts one feed entry the webhook dispatcher gave up on. */
export function countWebhookDispatchSkipped(): void {
  webhookDispatchSkipped.inc();
}

export const webhookAttempts = new Counter({
  name: 'lore_webhook_attempts_total',
  help: 'Webhook delivery attempts, by outcome: delivered (a 2xx); retrying (failed, another attempt scheduled); failed (failed, the schedule exhausted or the endpoint disabled).',
  labelNames: ['outcome'] as const,
  registers: [metricsRegistry],
});

export const webhookSendersBusy = new Gauge({
  name: 'lore_webhook_senders_busy',
  help: 'Webhook deliveries being attempted right now (at most 8; one workspace at most 6, one endpoint at most 4).',
  registers: [metricsRegistry],
});

export const purges = new Counter({
  name: 'lore_purges_total',
  help: "Removals of what a deletion made unreachable (kind: chunks, a deleted content's or collection's chunk records and vector points, or a content's earlier attempts'; messages, a deleted conversation's or a deleted message's replies; deliveries, a deleted webhook's log; versions, a deleted memory's), done after the deletion's batch by a purge worker, by outcome: done, or failed (logged, tried again).",
  labelNames: ['kind', 'outcome'] as const,
  registers: [metricsRegistry],
});

export const purgesRunning = new Gauge({
  name: 'lore_purges_running',
  help: 'Purges being removed right now, by kind (at most 4 in turn by workspace, and 4 more that something waits for).',
  labelNames: ['kind'] as const,
  registers: [metricsRegistry],
});

const storeCommits = new Counter({
  name: 'lore_sqlite_commits_total',
  help: 'Transactions committed to the embedded SQLite stores, by store (event-store, documents, vectors, feed): the durable round trips behind each write, which a change adding one per event shows here.',
  labelNames: ['store'] as const,
  registers: [metricsRegistry],
});

/** The commit counter of one embedded store, bound once so that counting a commit hashes no labels. */
export function storeCommitCounter(store: string): () => void {
  const child = storeCommits.labels({ store });
  return () => child.inc();
}

/** Seconds since `startNs` (a `process.hrtime.bigint()` reading). */
export function secondsSince(startNs: bigint): number {
  return Number(process.hrtime.bigint() - startNs) / 1e9;
}

/** The text format Prometheus scrapes, and its content type. */
export async function renderMetrics(): Promise<{ contentType: string; body: string }> {
  return { contentType: metricsRegistry.contentType, body: await metricsRegistry.metrics() };
}

/**
 * Whether a scrape may read `/metrics`: always when no token is configured (a private port,
 * or an operator's choice), else only with `Authorization: Bearer <METRICS_TOKEN>` (compared
 * in constant time).
 */
export function scrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (token === undefined) return true;
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(authorization ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
