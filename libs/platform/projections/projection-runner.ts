import { AppError, comparePositions, positionFromString, positionToString, START, unavailable, type Position, type RecordedEvent } from '@lore/platform/kernel';
import type { EventStore, EventSubscription } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import { inProcessorSpan } from '@lore/platform/telemetry';
import { isReactor, isVectorProjection, type FeedCheckpoints, type Processor } from './projection';
import { EventApplier } from './event-applier';
import { ParkedLedger, deleteParked } from './parked-ledger';
import { isTransientFailure, parkedStreamError, type ParkedEvent } from './parked-event';
import { ParkedStreams, type RetryOutcome } from './parked-streams';
import { DEFAULT_PARKING, FailingEvents, checkpointAt, type ParkingOptions } from './failing-events';
import { waitUntilApplied, type WaitableRunner, type Waiter } from './applied-wait';

/** A reactor writes its checkpoint after at most this many events it passed over (`Reactor.actsOn`). */
export const PASS_OVER_CHECKPOINT_EVERY = 256;

export { DEFAULT_PARKING, type ParkingOptions } from './failing-events';

export type RunnerState = 'stopped' | 'catching-up' | 'live' | 'retrying';

/** Restart delays after a transient failure: full jitter over 100 ms · 2^failures, capped at 30 s. */
const RETRY_BASE_MS = 100;
const RETRY_CAP_MS = 30_000;
/** How long stopping waits for a batch in hand. */
const STOP_WAIT_MS = 10_000;
/** How long waiters wait before the runner asks whether anything of its streams is left to pass (see checkBehindLater). */
const BEHIND_CHECK_MS = 250;
/** After this many failures in a row the cause is likely not transient: waits answer at once. */
const FAILURES_BEFORE_FAST_FAIL = 3;

/**
 * subscription → projection or reactor → checkpoint. A projection's checkpoint is written
 * with the batch's documents, so a batch is applied exactly once where the document store
 * is atomic and replayed idempotently where it is not; a reactor's checkpoint is written
 * after its effects, so a crash repeats at most one batch. Events at or before the
 * checkpoint are skipped.
 *
 * A failure stays with its stream (the way EventStoreDB's persistent subscriptions park
 * messages): when a batch fails, its events are applied one by one; one that fails
 * `parking.attempts` times is PARKED (recorded in the `parked_events` collection with the
 * checkpoint that steps past it) and the later events of its stream are parked behind it,
 * so the stream keeps its order while every other stream, user and workspace moves on.
 * Operators retry parked events (`retryStream`). A transient failure (`isTransientFailure`:
 * a store or broker briefly away) parks nothing at first: the runner restarts from its
 * checkpoint with growing, jittered delays, reporting `retrying` meanwhile. But "transient" is
 * the error's claim, and some claims are false for one input (an embedding provider that
 * always times out on one text): after `parking.isolateAfterRestarts` restarts at the same
 * checkpoint, the runner isolates the event (see `FailingEvents.isolate`), so one such event cannot stop
 * the processor for every workspace, while a real outage keeps it retrying.
 */
export class ProjectionRunner implements WaitableRunner {
  private subscription: EventSubscription | null = null;
  private position: Position = START;
  private waiters: Waiter[] = [];
  private stateValue: RunnerState = 'stopped';
  private failures = 0;
  private retryTimer: NodeJS.Timeout | null = null;
  /** The pending check for waiters on events gone from the log (see checkBehindLater). */
  private behindCheck: NodeJS.Timeout | null = null;
  /** Where the runner keeps restarting after transient failures: the checkpoint, how often, since when. */
  private stuck: { checkpoint: string; restarts: number; since: string } | null = null;
  /** Events a reactor passed over since its checkpoint was last written (`Reactor.actsOn`). */
  private passedOver = 0;
  private readonly applier: EventApplier;
  readonly parked: ParkedLedger;
  private readonly parkedStreams: ParkedStreams;
  private readonly failing: FailingEvents;
  /** Batches, operator retries and erasure take turns: each sees the ledger the last one left. */
  private turn: Promise<unknown> = Promise.resolve();

  constructor(
    readonly processor: Processor,
    private readonly events: EventStore,
    documents: DocumentStore,
    private readonly onError: (error: unknown) => void = () => undefined,
    /** Where vector projections write (and keep their checkpoints). */
    vectors: VectorStore | null = null,
    private readonly parking: ParkingOptions = DEFAULT_PARKING,
    private readonly onParked: (record: ParkedEvent) => void = () => undefined,
    /** Where reactors with `checkpointInFeed` keep their checkpoints (standalone's feed); null: the document store. */
    feedCheckpoints: FeedCheckpoints | null = null,
  ) {
    if (isVectorProjection(processor) && vectors === null) throw new Error(`${processor.name} is a vector projection: its runner needs a vector store`);
    this.applier = new EventApplier(processor, documents, vectors, feedCheckpoints);
    this.parked = new ParkedLedger(processor.name, documents);
    this.parkedStreams = new ParkedStreams(processor.name, events, this.applier, this.parked, onParked);
    this.failing = new FailingEvents(processor.name, this.applier, this.parked, parking, onError, onParked);
  }

  get state(): RunnerState {
    return this.stateValue;
  }

  get checkpoint(): Position {
    return this.position;
  }

  /** Events of this processor's streams after its checkpoint, counted up to `cap` (counted, never read). */
  async eventsBehind(cap: number): Promise<number> {
    const after = comparePositions(this.position, START) === 0 ? {} : { after: this.position };
    return this.events.countAfter({ ...after, cap, streamPrefixes: this.processor.streamPrefixes });
  }

  async start(): Promise<void> {
    if (this.subscription) return;
    this.clearRetry();
    await this.parked.load();
    const stored = await this.applier.getCheckpoint();
    this.position = stored === null ? START : positionFromString(stored);
    const head = await this.events.headPosition();
    this.stateValue = comparePositions(this.position, head) >= 0 ? 'live' : 'catching-up';
    const caughtUpAt = head;
    const after = stored === null ? {} : { after: this.position };
    this.subscription = this.events.subscribeToAll(
      { ...after, streamPrefixes: this.processor.streamPrefixes },
      async (batch) => {
        await this.inTurn(() => this.apply(batch));
        this.failures = 0;
        this.stuck = null;
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
    // Before anything is awaited: a batch that fails from now on must not schedule a restart.
    this.stateValue = 'stopped';
    if (subscription) await subscription.close();
    // Nothing will be applied any more: whoever waits (read-your-writes, an erasure waiting
    // for the others) is answered now rather than at its timeout.
    for (const waiter of this.waiters.splice(0)) waiter.reject(unavailable(`${this.processor.name} stopped`));
    if (this.behindCheck !== null) clearTimeout(this.behindCheck);
    this.behindCheck = null;
    // A batch still in hand (an event being retried before it is parked) finishes first: the
    // stores may close, or a rebuild reset them, right after. Bounded, so stopping never hangs.
    await Promise.race([this.turn, new Promise((resolve) => setTimeout(resolve, STOP_WAIT_MS).unref())]);
    this.clearRetry();
  }

  /** Drops the read model (a reactor: its checkpoint) and its parked events, and replays the whole log into it. */
  async rebuild(): Promise<void> {
    await this.stop();
    await this.applier.reset();
    await this.inTurn(async () => {
      // Loaded here too: the rebuild tool rebuilds runners it never started.
      await this.parked.load();
      for (const record of this.parked.all()) await this.applier.apply([], [deleteParked(record)]);
      this.parked.clear();
    });
    this.position = START;
    await this.start();
  }

  /**
   * Read-your-writes: resolves once this projection has applied `position`. A bounded wait,
   * then 503: the write is stored, only its read model is late. At once a 503 when one of
   * `streams` (those the write touched) is parked here: its event will not be applied until
   * an operator retries it, so waiting could only end in the timeout.
   */
  waitFor(position: Position, timeoutMs: number, streams: readonly string[] = []): Promise<void> {
    return waitUntilApplied([this], position, timeoutMs, streams);
  }

  /** Whether `position` is applied here; throws the 503s `waitFor` answers at once (see there). */
  hasApplied(position: Position, streams: readonly string[]): boolean {
    this.assertNotParked(streams);
    if (comparePositions(this.position, position) >= 0) return true;
    if (this.stateValue === 'retrying' && this.failures >= FAILURES_BEFORE_FAST_FAIL) {
      throw readModelLate(`writes so far are stored, but ${this.processor.name} is failing and retrying; retry the read later`);
    }
    return false;
  }

  addWaiter(waiter: Waiter): void {
    this.waiters.push(waiter);
    this.checkBehindLater();
  }

  dropWaiter(waiter: Waiter): void {
    this.waiters = this.waiters.filter((w) => w !== waiter);
  }

  lateError(timeoutMs: number): Error {
    return new ReadModelLateError(`writes so far are stored, but read model ${this.processor.name} did not catch up within ${timeoutMs} ms; retry the read`);
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

  /** An operator's retry of one stream's parked events (see `ParkedStreams.retry`), in turn with the batches. */
  retryStream(streamId: string): Promise<RetryOutcome> {
    return this.inTurn(() => this.parkedStreams.retry(streamId));
  }

  /** Erasure of streams: see `ParkedStreams.forget`. */
  async forgetStreams(streamIds: readonly string[]): Promise<void> {
    if (!streamIds.some((s) => this.parked.ofStream(s).length > 0)) return;
    await this.inTurn(() => this.parkedStreams.forget(streamIds));
  }

  /** The subscription ended with an error: report it, then start again from the checkpoint. */
  private fail(error: unknown): void {
    this.subscription = null;
    if (this.stateValue === 'stopped') return;
    this.stateValue = 'retrying';
    this.failures++;
    const at = positionToString(this.position);
    this.stuck = this.stuck?.checkpoint === at ? { ...this.stuck, restarts: this.stuck.restarts + 1 } : { checkpoint: at, restarts: 1, since: new Date().toISOString() };
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

  private inTurn<T>(work: () => Promise<T>): Promise<T> {
    const run = this.turn.then(work, work);
    this.turn = run.catch(() => undefined);
    return run;
  }

  private async apply(batch: readonly RecordedEvent[]): Promise<void> {
    const last = batch[batch.length - 1];
    if (last === undefined) return;
    // Events recorded as parked already (a crash before a vector checkpoint) are not redone.
    const fresh = batch.filter((event) => comparePositions(event.position, this.position) > 0 && !this.parked.holds(event.id));
    if (fresh.length > 0 && this.mayPassOver(fresh)) {
      this.passedOver += fresh.length;
      if (this.passedOver >= PASS_OVER_CHECKPOINT_EVERY) {
        await this.failing.applyAll([], checkpointAt(this.processor.name, last));
        this.passedOver = 0;
      }
    } else if (fresh.length > 0) {
      // In the trace of the request that appended the events: a reactor's effects and log lines too.
      await inProcessorSpan(this.processor.name, fresh, () => this.applyOrPark(fresh, last));
      this.passedOver = 0;
    }
    if (comparePositions(last.position, this.position) > 0) this.position = last.position;
    this.release();
  }

  /** The batch at once; when it fails for a reason of its own, event by event (parking what keeps failing). */
  private async applyOrPark(fresh: readonly RecordedEvent[], last: RecordedEvent): Promise<void> {
    if (this.stuck !== null && this.stuck.restarts >= this.parking.isolateAfterRestarts) {
      return this.failing.isolate(fresh, last, this.stuck, (position) => {
        this.position = position;
      });
    }
    try {
      await this.failing.applyAll(fresh, checkpointAt(this.processor.name, last));
    } catch (error) {
      if (isTransientFailure(error)) throw error;
      for (const event of fresh) await this.failing.applyAlone(event);
    }
  }

  /** A reactor's batch holding no event it acts on (and no stream parked behind an event). */
  private mayPassOver(fresh: readonly RecordedEvent[]): boolean {
    const actsOn = isReactor(this.processor) ? this.processor.actsOn : undefined;
    return actsOn !== undefined && fresh.every((event) => !actsOn(event) && this.parked.head(event.streamId) === undefined);
  }

  private assertNotParked(streams: readonly string[]): void {
    for (const stream of streams) {
      const head = this.parked.head(stream);
      if (head !== undefined) throw parkedStreamError(this.processor.name, head);
    }
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const still: Waiter[] = [];
    for (const waiter of this.waiters) {
      const parked = waiter.streams.map((s) => this.parked.head(s)).find((r) => r !== undefined);
      if (parked !== undefined) waiter.reject(parkedStreamError(this.processor.name, parked));
      else if (comparePositions(this.position, waiter.position) >= 0) waiter.resolve();
      else still.push(waiter);
    }
    this.waiters = still;
  }

  /**
   * Answers waiters for events this processor will never be handed: erasure deleted their
   * streams before it read them (the memory search index, which erasure does not wait for), so
   * no batch passes their positions. When nothing of its streams lies after its checkpoint, every
   * event named by a waiter from before the count is applied here or gone from the log. Asked
   * only while someone has waited BEHIND_CHECK_MS (a count per wait would cost every write), and
   * a failed count leaves them waiting, as before.
   */
  private checkBehindLater(): void {
    if (this.behindCheck !== null || this.waiters.length === 0) return;
    this.behindCheck = setTimeout(() => {
      const waiters = [...this.waiters];
      void this.eventsBehind(1)
        .catch(() => 1)
        .then((behind) => {
          this.behindCheck = null;
          if (behind === 0 && this.stateValue !== 'stopped') {
            for (const waiter of waiters) {
              if (!this.waiters.includes(waiter)) continue;
              this.dropWaiter(waiter);
              waiter.resolve();
            }
          }
          this.checkBehindLater();
        });
    }, BEHIND_CHECK_MS);
    this.behindCheck.unref();
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

/** A read model behind a write: a 503 that says when to ask again (`Retry-After`), which a caller's retry policy reads. */
function readModelLate(why: string): AppError {
  return new AppError('unavailable', why, [], [], READ_MODEL_RETRY_AFTER_S);
}

const READ_MODEL_RETRY_AFTER_S = 1;

/**
 * A wait that ran out of time while the processor was on its way (neither failing nor parked):
 * the write is stored and what it sets off is under way. The 503 other callers answer; a caller
 * for whom that is an answer (a deletion whose erasure outlasts the wait: 202) tells it by class.
 */
export class ReadModelLateError extends AppError {
  constructor(why: string) {
    super('unavailable', why, [], [], READ_MODEL_RETRY_AFTER_S);
  }
}

/** Whether a read-your-writes wait ran out of time with its processors still on their way (false: done); any other refusal is thrown. */
export async function outlastsWait(wait: Promise<void>): Promise<boolean> {
  try {
    await wait;
    return false;
  } catch (error) {
    if (error instanceof ReadModelLateError) return true;
    throw error;
  }
}
