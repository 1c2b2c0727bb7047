import { comparePositions, positionFromString, positionToString, START, unavailable, type Position, type RecordedEvent } from '@lore/platform/kernel';
import type { EventStore, EventSubscription } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { VectorStore, VectorWrite } from '@lore/platform/vectors/port';
import { isReactor, isVectorProjection, type Processor, type VectorProjection } from './projection';
import { inProcessorSpan } from '@lore/platform/telemetry';
import { BatchContext } from './batch-context';

interface Waiter {
  readonly position: Position;
  readonly resolve: () => void;
}

export type RunnerState = 'stopped' | 'catching-up' | 'live' | 'retrying';

/** Restart delays after a failure: full jitter over 100 ms · 2^failures, capped at 30 s. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 30_000;
/** After this many failures in a row the cause is likely not transient: waits answer at once. */
const FAILURES_BEFORE_FAST_FAIL = 3;

/**
 * subscription → projection or reactor → checkpoint. A projection's checkpoint is written
 * with the batch's documents, so a batch is applied exactly once where the document store
 * is atomic and replayed idempotently where it is not; a reactor's checkpoint is written
 * after its effects, so a crash repeats at most one batch. Events at or before the
 * checkpoint are skipped. A failure (a handler that throws, a store or broker that is
 * briefly away) never stops a runner for good: it restarts from its checkpoint with
 * growing, jittered delays, reporting `retrying` meanwhile.
 */
export class ProjectionRunner {
  private subscription: EventSubscription | null = null;
  private position: Position = START;
  private waiters: Waiter[] = [];
  private stateValue: RunnerState = 'stopped';
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;

  constructor(
    readonly processor: Processor,
    private readonly events: EventStore,
    private readonly documents: DocumentStore,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** Where vector projections write (and keep their checkpoints). */
    private readonly vectors: VectorStore | null = null,
  ) {
    if (isVectorProjection(processor) && vectors === null) throw new Error(`${processor.name} is a vector projection: its runner needs a vector store`);
  }

  get state(): RunnerState {
    return this.stateValue;
  }

  get checkpoint(): Position {
    return this.position;
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    this.clearRetry();
    const stored = await this.checkpointStore().getCheckpoint(this.processor.name);
    this.position = stored === null ? START : positionFromString(stored);
    const head = await this.events.headPosition();
    this.stateValue = comparePositions(this.position, head) >= 0 ? 'live' : 'catching-up';
    const caughtUpAt = head;
    const after = stored === null ? {} : { after: this.position };
    this.subscription = this.events.subscribeToAll(
      { ...after, streamPrefixes: this.processor.streamPrefixes },
      async (batch) => {
        await this.apply(batch);
        this.failures = 0;
        if (this.stateValue === 'catching-up') await this.settleCatchUp(caughtUpAt);
      },
      (error) => this.fail(error),
    );
    // A log whose head lies in streams this projection ignores never delivers past it.
    if (this.stateValue === 'catching-up') void this.settleCatchUp(caughtUpAt);
  }

  async stop(): Promise<void> {
    this.clearRetry();
    const subscription = this.subscription;
    this.subscription = null;
    if (subscription) await subscription.close();
    this.stateValue = 'stopped';
  }

  /** Drops the read model (a reactor: its checkpoint) and replays the whole log into it. */
  async rebuild(): Promise<void> {
    await this.stop();
    const processor = this.processor;
    if (isVectorProjection(processor)) {
      const vectors = this.vectorStore();
      await vectors.reset((await vectors.listIndexes()).map((i) => i.name), processor.name);
    } else {
      await this.documents.reset(isReactor(processor) ? [] : processor.collections, processor.name);
    }
    this.position = START;
    await this.start();
  }

  /**
   * Read-your-writes: resolves once this projection has applied `position`. A bounded wait,
   * then 503: the write is stored, only its read model is late.
   */
  async waitFor(position: Position, timeoutMs: number): Promise<void> {
    if (comparePositions(this.position, position) >= 0) return;
    if (this.stateValue === 'retrying' && this.failures >= FAILURES_BEFORE_FAST_FAIL) {
      throw unavailable(`the write was stored, but ${this.processor.name} is failing and retrying; retry the read later`);
    }
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w.resolve !== done);
        reject(unavailable(`the write was stored, but read model ${this.processor.name} did not catch up within ${timeoutMs} ms; retry the read`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.waiters.push({ position, resolve: done });
    });
  }

  /** Resolves once caught up with the log's head as it was at start; rejects if the runner fails or the time runs out. */
  async untilLive(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.stateValue !== 'live') {
      if (this.stateValue === 'retrying') throw unavailable(`${this.processor.name} failed and is retrying`);
      if (this.stateValue === 'stopped') throw unavailable(`${this.processor.name} is not running`);
      if (Date.now() > deadline) throw unavailable(`${this.processor.name} did not catch up within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** The subscription ended with an error: report it, then start again from the checkpoint. */
  private fail(error: unknown): void {
    this.subscription = null;
    if (this.stateValue === 'stopped') return;
    this.stateValue = 'retrying';
    this.failures++;
    this.onError(error);
    const delay = Math.random() * Math.min(RETRY_CAP_MS, RETRY_BASE_MS * 2 ** (this.failures - 1));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      this.start().catch((startError: unknown) => this.fail(startError));
    }, delay);
    this.retryTimer.unref();
  }

  private clearRetry(): void {
    if (this.retryTimer !== null) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private async apply(batch: Parameters<Parameters<EventStore['subscribeToAll']>[1]>[0]): Promise<void> {
    const fresh = batch.filter((event) => comparePositions(event.position, this.position) > 0);
    const last = batch[batch.length - 1];
    if (last === undefined) return;
    // In the trace of the request that appended the events: a reactor's effects and log lines too.
    if (fresh.length > 0) await inProcessorSpan(this.processor.name, fresh, () => this.applyFresh(fresh, last));
    if (comparePositions(last.position, this.position) > 0) this.position = last.position;
    this.release();
  }

  private async applyFresh(fresh: readonly RecordedEvent[], last: RecordedEvent): Promise<void> {
    const checkpoint = { name: this.processor.name, value: positionToString(last.position) };
    const processor = this.processor;
    if (isReactor(processor)) {
      await processor.react(fresh);
      await this.documents.write([], checkpoint);
    } else if (isVectorProjection(processor)) {
      await this.applyVectors(processor, fresh, checkpoint);
    } else {
      const context = new BatchContext(this.documents);
      for (const event of fresh) await processor.handle(event, context);
      await this.documents.write(context.writes, checkpoint);
    }
  }

  private async applyVectors(processor: VectorProjection, events: readonly RecordedEvent[], checkpoint: { name: string; value: string }): Promise<void> {
    const vectors = this.vectorStore();
    const writes: VectorWrite[] = [];
    const context = { ensureIndex: (definition: Parameters<VectorStore['ensureIndex']>[0]) => vectors.ensureIndex(definition), write: (w: VectorWrite) => void writes.push(w) };
    for (const event of events) await processor.handle(event, context);
    await vectors.write(writes, checkpoint);
  }

  private checkpointStore(): Pick<DocumentStore, 'getCheckpoint'> {
    return isVectorProjection(this.processor) ? this.vectorStore() : this.documents;
  }

  private vectorStore(): VectorStore {
    if (this.vectors === null) throw new Error(`${this.processor.name} has no vector store`);
    return this.vectors;
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (comparePositions(this.position, waiter.position) >= 0) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  /** Live once nothing of ours remains between the checkpoint and the head seen at start. */
  private async settleCatchUp(head: Position): Promise<void> {
    if (comparePositions(this.position, head) >= 0) {
      this.stateValue = 'live';
      return;
    }
    const pending = await this.events.readAll({ after: this.position, maxCount: 1, streamPrefixes: this.processor.streamPrefixes });
    const first = pending[0];
    if (first === undefined || comparePositions(first.position, head) > 0) {
      if (this.stateValue === 'catching-up') this.stateValue = 'live';
    }
  }
}
