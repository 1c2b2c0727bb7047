import { reactingTo, type Clock, type EventCause } from '@lore/platform/kernel';
import type { ContextLog } from '@lore/platform/cqrs';
import { registerIngestionQueueSource } from '@lore/platform/telemetry';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentCollection, DocumentStore, Filter } from '@lore/platform/documents/port';
import { isEmbeddingUnavailable, type EmbeddingModels } from '@lore/platform/embeddings/port';
import { LeaseLostError } from '@lore/knowledge/domain';
import type { KnowledgeConfig } from '@lore/knowledge/contracts';
import { COLLECTIONS, CONTENTS, type CollectionDoc, type ContentDoc } from '../knowledge.read-models';
import { providerOf } from '../embedding-choice';
import type { ContentTexts } from '../content-texts';
import { AttemptAborted, ContentProcessor, type Attempt, type EarlierAttemptsPurged } from './content-processor';
import { FairQueue, type Tenant } from './fair-queue';

/** Retry delays after transient failures: base (KNOWLEDGE_RETRY_BASE_MS, 2 s), 4 × base, 16 × base, … capped at 5 min. */
const RETRY_CAP_MS = 5 * 60_000;
/** Contents looked at per workspace per sweep (the oldest first). */
const SWEEP_BATCH = 500;
/** Contents a worker may have to take: never started, or started and perhaps abandoned. */
const PENDING: Filter = { status: { $in: ['new', 'processing'] } };

/** Work whose event names no workspace or actor (none is known to be written so): one shared turn. */
const UNKNOWN_TENANT: Tenant = { workspaceId: '', userId: '' };

/**
 * Runs processing attempts, `workers` at a time, taken fairly: across workspaces, then across
 * users within one (`FairQueue`). When every worker is busy, a content of a workspace with no
 * attempt running starts anyway, on one of up to `workers` more slots kept for that: waiting
 * for a busy tenant's attempt to end cost the other tenant's small content several times its
 * idle time (bench:fairness), and the attempts share the embedding model in turns, so the
 * extra ones take little of it. Work arrives from the ingestion reactor (a
 * content was added, reprocessed, or its retry is scheduled) and from a sweep of the read
 * model every half lease, which finds what no event announces any more: contents left `new`
 * or `processing` by a crash or a restart, retries that came due. Each attempt holds a lease
 * renewed by heartbeats, is abandoned when it stops making progress, and ends `completed`, `failed` with a reason,
 * or scheduled for a retry; it never stays stuck. An attempt runs `reactingTo` the latest event
 * that asked for it (added, reprocessed, failed with a retry), so its events carry that event
 * as their cause; one only the sweep found (its event was missed across a crash) has no known
 * cause and is recorded as `system:ingestion`'s.
 */
export class IngestionWorkers {
  private readonly queue = new FairQueue();
  /**
   * Asked for again while an attempt of theirs still runs (a reprocess, a retry timer): queued
   * as soon as that attempt ends, as the same tenant's. Dropping the request instead left a
   * reprocessed content `new` until the next sweep (half a lease: 30 s by default).
   */
  private readonly again = new Map<string, Tenant>();
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();
  /** Attempts running per workspace (those with none are absent). */
  private readonly runningIn = new Map<string, number>();
  /** The latest event that asked for each content not started yet (queued, or asked for again). */
  private readonly causes = new Map<string, EventCause>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private sweeper: NodeJS.Timeout | null = null;
  private stopped = true;
  /** Removes this queue from the `lore_ingestion_queue_depth` gauge (set while started). */
  private unregisterQueueMetric: () => void = () => undefined;
  private readonly processor: ContentProcessor;

  constructor(
    private readonly deps: {
      readonly events: EventStore;
      readonly documents: DocumentStore;
      readonly embeddings: EmbeddingModels;
      readonly texts: ContentTexts;
      readonly clock: Clock;
      readonly config: KnowledgeConfig['processing'];
      readonly log?: ContextLog;
      /** Contents the sweep looks at per workspace (SWEEP_BATCH; smaller in tests). */
      readonly sweepBatch?: number;
      /** Resolves once the content's earlier attempts' chunks are purged (see `ContentProcessor.run`). */
      readonly earlierAttemptsPurged: EarlierAttemptsPurged;
    },
  ) {
    this.processor = new ContentProcessor({ ...deps, leaseMs: deps.config.leaseMs, maxAttempts: deps.config.maxAttempts, purgeWaitMs: deps.config.timeoutMs });
  }

  async start(): Promise<void> {
    this.stopped = false;
    this.sweeper = setInterval(() => void this.sweep(), Math.max(250, Math.floor(this.deps.config.leaseMs / 2)));
    this.sweeper.unref();
    this.unregisterQueueMetric = registerIngestionQueueSource(this);
    await this.sweep();
  }

  /** Stops taking work and aborts running attempts; their leases lapse and another worker resumes them. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.unregisterQueueMetric();
    if (this.sweeper !== null) clearInterval(this.sweeper);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    this.queue.clear();
    this.again.clear();
    this.causes.clear();
    const running = [...this.running.values()];
    for (const r of running) r.controller.abort(new AttemptAborted('stopping'));
    await Promise.allSettled(running.map((r) => r.done));
  }

  /**
   * `cause`: the event that asks for it, when one does. `tenant`: whose turn it takes; by
   * default the cause's workspace and actor (every event appended in a request or a reaction
   * names them), which a reprocess makes the user who asked.
   */
  enqueue(contentId: string, cause?: EventCause, tenant: Tenant = tenantOf(cause)): void {
    if (this.stopped) return;
    // Only the id and metadata: an event's data (a long text's part) is not kept in memory.
    if (cause !== undefined) this.causes.set(contentId, { id: cause.id, metadata: cause.metadata });
    if (this.queue.has(contentId)) return;
    if (this.running.has(contentId)) {
      this.again.set(contentId, tenant);
      return;
    }
    this.queue.push(contentId, tenant);
    this.pump();
  }

  /** Contents waiting for a worker, per workspace (those with none are absent): a gauge for metrics. */
  queueDepthByWorkspace(): Map<string, number> {
    return this.queue.depthByWorkspace();
  }

  /** A retry at `at` (ISO): queued then. */
  scheduleAt(contentId: string, at: string, cause?: EventCause, tenant: Tenant = tenantOf(cause)): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.enqueue(contentId, cause, tenant);
    }, Math.max(0, Date.parse(at) - this.deps.clock.now().getTime()));
    timer.unref();
    this.timers.add(timer);
  }

  /** Resolves when nothing is queued or running (tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.queue.size > 0 || this.running.size > 0) await new Promise((r) => setTimeout(r, 20));
  }

  /**
   * Queues what is due of every workspace with pending contents, a page of each. One page
   * across all workspaces (the oldest 500) was first come, first served again after a restart:
   * a workspace whose content was newer than another's backlog of more than a page was not
   * queued until that backlog drained.
   */
  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const now = this.deps.clock.now().toISOString();
      const contents = this.deps.documents.collection<ContentDoc>(CONTENTS);
      for await (const workspaceId of workspacesWithPending(contents)) {
        if (this.stopped) return;
        const page = await contents.find({ filter: { ...PENDING, workspace_id: workspaceId }, sort: [['updated_at', 'asc']], limit: this.deps.sweepBatch ?? SWEEP_BATCH });
        for (const content of page.items) {
          const due = content.status === 'new' || (content.retry_at !== null ? content.retry_at <= now : content.lease_until === null || content.lease_until <= now);
          // No event at hand: the content says whose it is (the uploader's turn).
          if (due) this.enqueue(content.id, undefined, { workspaceId: content.workspace_id, userId: content.created_by });
        }
      }
    } catch (error) {
      this.deps.log?.warn({ err: error }, 'ingestion sweep failed; next sweep retries');
    }
  }

  private pump(): void {
    const { workers } = this.deps.config;
    while (!this.stopped && this.running.size < 2 * workers) {
      const next = this.running.size < workers ? this.queue.shift() : this.queue.shift((workspaceId) => !this.runningIn.has(workspaceId));
      if (next === undefined) return;
      const { id: contentId, tenant } = next;
      const { workspaceId } = tenant;
      this.runningIn.set(workspaceId, (this.runningIn.get(workspaceId) ?? 0) + 1);
      const controller = new AbortController();
      const cause = this.causes.get(contentId);
      this.causes.delete(contentId);
      const done = reactingTo(cause, 'ingestion', () => this.process(contentId, controller.signal, cause, tenant))
        .catch((error: unknown) => this.deps.log?.warn({ err: error, contentId }, 'processing attempt ended with an error'))
        .finally(() => {
          this.running.delete(contentId);
          const left = (this.runningIn.get(workspaceId) ?? 1) - 1;
          if (left > 0) this.runningIn.set(workspaceId, left);
          else this.runningIn.delete(workspaceId);
          // A claim that finds nothing to do is cheap: the decider says whether it is startable.
          const again = this.again.get(contentId);
          this.again.delete(contentId);
          if (again !== undefined) this.enqueue(contentId, undefined, again);
          this.pump();
        });
      this.running.set(contentId, { controller, done });
    }
  }

  private async process(contentId: string, signal: AbortSignal, cause: EventCause | undefined, tenant: Tenant): Promise<void> {
    const content = await this.deps.documents.collection<ContentDoc>(CONTENTS).get(contentId);
    if (content === null) return;
    const collection = await this.deps.documents.collection<CollectionDoc>(COLLECTIONS).get(content.collection_id);
    if (collection === null) return; // deleted with its collection: the cascade removes it
    // During a model change new contents go straight to the new model's index.
    const model = collection.pending_model ?? collection.model;
    const attempt = await this.processor.claim(contentId, { model, chunkSize: collection.settings.chunk_size, chunkOverlap: collection.settings.chunk_overlap });
    if (attempt === null) {
      if (content.retry_at !== null) this.scheduleAt(contentId, content.retry_at, cause, tenant);
      return;
    }
    await this.attempt(attempt, signal, cause, tenant);
  }

  private async attempt(attempt: Attempt, stopping: AbortSignal, cause: EventCause | undefined, tenant: Tenant): Promise<void> {
    const { contentId } = attempt.content;
    const controller = new AbortController();
    const abort = (reason: AttemptAborted | LeaseLostError): void => {
      if (!controller.signal.aborted) controller.abort(reason);
    };
    stopping.addEventListener('abort', () => abort(new AttemptAborted('stopping')), { once: true });
    // A stall timeout, restarted at every step that made progress (the text chunked, a batch
    // embedded and recorded). A bound on the whole attempt failed large contents for good: a
    // 20 MB text is ~20 000 chunks, 7-17 min at the local model's 20-50 chunks/s on two cores,
    // past the 10 min default however healthy the provider, and again on every reprocess.
    // A hung provider still ends the attempt after KNOWLEDGE_PROCESSING_TIMEOUT_MS.
    let timeout = setTimeout(() => abort(new AttemptAborted('timeout')), this.deps.config.timeoutMs);
    const progressed = (): void => {
      clearTimeout(timeout);
      if (!controller.signal.aborted) timeout = setTimeout(() => abort(new AttemptAborted('timeout')), this.deps.config.timeoutMs);
    };
    const heartbeat = setInterval(() => {
      this.processor.renew(contentId, attempt.leaseId).catch((error: unknown) => {
        if (error instanceof LeaseLostError) abort(error);
      });
    }, Math.max(100, Math.floor(this.deps.config.leaseMs / 3)));
    try {
      const provider = providerOf(this.deps.embeddings, attempt.model);
      await race(this.processor.run(attempt, provider, controller.signal, progressed), controller.signal);
    } catch (error) {
      await this.afterFailure(attempt, controller.signal.aborted ? controller.signal.reason : error, cause, tenant);
    } finally {
      clearTimeout(timeout);
      clearInterval(heartbeat);
      this.processor.release(contentId);
    }
  }

  private async afterFailure(attempt: Attempt, error: unknown, cause: EventCause | undefined, tenant: Tenant): Promise<void> {
    const { contentId } = attempt.content;
    if (error instanceof LeaseLostError) return; // someone else owns it now, or it is gone
    if (error instanceof AttemptAborted && error.why === 'stopping') return; // the lease lapses; a worker resumes it
    const { message, transient } = describe(error, this.deps.config.timeoutMs);
    // `attemptsSinceRequest` already counts this attempt (the claim's ContentProcessingStarted
    // incremented it). Subtracting one more gave up one attempt early: with the default cap of
    // 3, a content failed after 2 attempts, and the first retry waited 4 × the base.
    const attemptsSoFar = attempt.content.attemptsSinceRequest;
    const attemptsLeft = this.deps.config.maxAttempts - attemptsSoFar;
    const retryAt = transient && attemptsLeft > 0 ? new Date(this.deps.clock.now().getTime() + retryDelay(this.deps.config.retryBaseMs, attemptsSoFar - 1)) : null;
    const reason = transient && retryAt === null ? `${message} (gave up after ${this.deps.config.maxAttempts} attempts)` : message;
    try {
      await this.processor.fail(contentId, attempt.leaseId, reason, retryAt);
      // The reactor schedules it too, caused by the failure event: whichever comes first.
      if (retryAt !== null) this.scheduleAt(contentId, retryAt.toISOString(), cause, tenant);
    } catch (failError) {
      if (!(failError instanceof LeaseLostError)) throw failError;
    }
  }
}

/**
 * The workspaces that have pending contents, in id order: one query each (the first pending
 * content after the previous workspace, on the index knowledge.context.ts declares for it).
 */
async function* workspacesWithPending(contents: DocumentCollection<ContentDoc>): AsyncGenerator<string> {
  let after: string | null = null;
  for (;;) {
    const filter: Filter = after === null ? PENDING : { ...PENDING, workspace_id: { $gt: after } };
    const [next] = (await contents.find({ filter, sort: [['workspace_id', 'asc']], limit: 1 })).items;
    if (next === undefined) return;
    yield next.workspace_id;
    after = next.workspace_id;
  }
}

function tenantOf(cause: EventCause | undefined): Tenant {
  const { workspaceId, actor } = cause?.metadata ?? {};
  if (typeof workspaceId !== 'string' || workspaceId === '') return UNKNOWN_TENANT;
  return { workspaceId, userId: typeof actor === 'string' ? actor : '' };
}

/** The wait before retry number `retry` (0 for the first). */
function retryDelay(baseMs: number, retry: number): number {
  return Math.min(RETRY_CAP_MS, baseMs * 4 ** Math.max(0, retry));
}

/** A reason users can act on; transient causes (a busy provider, a crashed worker thread) are retried. */
function describe(error: unknown, timeoutMs: number): { message: string; transient: boolean } {
  if (error instanceof AttemptAborted) {
    return { message: `Processing timed out after ${formatDuration(timeoutMs)} without progress (KNOWLEDGE_PROCESSING_TIMEOUT_MS), usually an embedding provider that does not answer`, transient: false };
  }
  if (isEmbeddingUnavailable(error)) return { message: error.message, transient: error.retryable };
  if (error instanceof Error && 'code' in error && typeof error.code === 'string') return { message: error.message, transient: error.code === 'unavailable' };
  return { message: `Processing failed: ${error instanceof Error ? error.message : String(error)}`, transient: false };
}

/** "1.5 s", "10 min": a short timeout must not read as "0 s" or "2 s". */
function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms} ms`;
  if (ms < 120_000) return `${Number((ms / 1000).toFixed(1))} s`;
  return `${Number((ms / 60_000).toFixed(1))} min`;
}

/** Settles with the work, or rejects as soon as the signal aborts (the work's own promise is left to finish). */
async function race(work: Promise<void>, signal: AbortSignal): Promise<void> {
  if (signal.aborted) throw signal.reason;
  let onAbort: (() => void) | undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason instanceof Error ? signal.reason : new AttemptAborted('stopping'));
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    await Promise.race([work, aborted]);
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort);
    work.catch(() => undefined);
  }
}
