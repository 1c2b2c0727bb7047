import type { Position } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import type { VectorStore } from '@lore/platform/vectors/port';
import { isReactor, type FeedCheckpoints, type ReadModelProjection, type Reactor } from './projection';
import { DEFAULT_PARKING, ProjectionRunner, type ParkingOptions } from './projection-runner';
import type { ParkedEvent } from './parked-event';
import { byPosition } from './parked-ledger';
import { waitUntilApplied } from './applied-wait';

/** Which parked events an operator means: all of them, or one processor's, or one workspace's (HTTP callers: always their own). */
export interface ParkedFilter {
  readonly processor?: string | undefined;
  readonly workspaceId?: string | undefined;
}

export interface RetryReport {
  /** Events applied and removed from the parked records. */
  readonly applied: number;
  /** Records that failed again (attempts incremented); the events behind them stay waiting. */
  readonly failed: readonly ParkedEvent[];
}

/** One runner as metrics see it. */
export interface ProcessorMetrics {
  readonly processor: string;
  readonly state: string;
  readonly parked: number;
  /** Events of its streams after its checkpoint, counted up to LAG_COUNT_CAP (the same on every event store). */
  readonly lag: number;
}

/** Lag is counted (never read) up to this bound, so a scrape of a far-behind processor stays cheap. */
export const LAG_COUNT_CAP = 1_000;
/** How long a lag count is reused: scrapes, however frequent (`/metrics` may be open), count at most this often. */
export const LAG_CACHE_MS = 5_000;

/**
 * The projections and reactors one service hosts, each behind its own checkpointed runner.
 * Read-your-writes waits for the projections only; a write waits for a reactor only where
 * the reactor's effect is what the write promises (a permanent deletion is answered once
 * erased).
 */
export class EventProcessors {
  readonly runners: readonly ProjectionRunner[];
  /** The runners read-your-writes waits for (every write asks). */
  private readonly projections: readonly ProjectionRunner[];
  /** The last lag count (a pending one is shared by concurrent scrapes). */
  private lagCount: { readonly at: number; readonly lags: Promise<number[]> } | null = null;

  constructor(
    processors: { readonly projections: readonly ReadModelProjection[]; readonly reactors: readonly Reactor[] },
    events: EventStore,
    documents: DocumentStore,
    onError: (processor: string, error: unknown) => void,
    vectors: VectorStore | null = null,
    options: { readonly parking?: Partial<ParkingOptions>; readonly onParked?: (record: ParkedEvent) => void; readonly feedCheckpoints?: FeedCheckpoints | undefined } = {},
  ) {
    const parking = { ...DEFAULT_PARKING, ...options.parking };
    this.runners = [...processors.projections, ...processors.reactors].map(
      (p) => new ProjectionRunner(p, events, documents, (e) => onError(p.name, e), vectors, parking, options.onParked, options.feedCheckpoints ?? null),
    );
    this.projections = this.runners.filter((r) => !isReactor(r.processor));
  }


  async start(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.start()));
  }

  /** Reads every processor's parked records without starting it (the `parked` tool, with Lore stopped). */
  async loadParked(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.parked.load()));
  }

  async stop(): Promise<void> {
    await Promise.all(this.runners.map((r) => r.stop()));
  }

  /**
   * Read-your-writes: waits until every projection has applied the position; a 503 at once
   * when one of `streams` (those the write appended to) is parked in one of them.
   */
  waitFor(position: Position | null, timeoutMs: number, streams: readonly string[] = []): Promise<void> {
    if (position === null) return Promise.resolve();
    return waitUntilApplied(this.projections, position, timeoutMs, streams);
  }

  /**
   * Waits until every other processor of the streams `name` reads has handled the position
   * (erasure waits for all readers of a stream it deletes). Processors of other streams never
   * see the position, so their checkpoints never pass it: they are not waited for. A stream
   * parked elsewhere never blocks it (checkpoints step past parked events); the parked events
   * of `erasedStreams` are then applied where they still apply and their records removed, so
   * erasure leaves nothing of those streams behind in any processor. The processors named in
   * `unwaited` are not waited for: the erasure makes them forget the streams itself (the memory
   * search index, whose reactor lags behind every workspace's embeddings).
   */
  async waitForAllBut(name: string, position: Position | null, timeoutMs: number, erasedStreams: readonly string[] = [], unwaited: readonly string[] = []): Promise<void> {
    if (position === null) return;
    const prefixes = this.runner(name).processor.streamPrefixes;
    // No prefixes means every stream.
    const overlaps = (other: readonly string[]): boolean => other.length === 0 || prefixes.length === 0 || other.some((p) => prefixes.some((q) => p.startsWith(q) || q.startsWith(p)));
    const readers = this.runners.filter((r) => r.processor.name !== name && overlaps(r.processor.streamPrefixes));
    await waitUntilApplied(
      readers.filter((r) => !unwaited.includes(r.processor.name)),
      position,
      timeoutMs,
    );
    if (erasedStreams.length === 0) return;
    for (const reader of readers) await reader.forgetStreams(erasedStreams);
  }

  /** Waits for one named processor (e.g. erasure before a deletion is reported done); `streams` as in `waitFor`. */
  async waitForOne(name: string, position: Position | null, timeoutMs: number, streams: readonly string[] = []): Promise<void> {
    if (position === null) return;
    await this.runner(name).waitFor(position, timeoutMs, streams);
  }

  /** Every processor is live (parked events do not make a processor unready: see `parkedCounts`). */
  isReady(): boolean {
    return this.runners.every((r) => r.state === 'live');
  }

  /** Parked events per processor, for the processors that hold any (what `/ready` calls degraded). */
  parkedCounts(): Record<string, number> {
    return Object.fromEntries(this.runners.filter((r) => r.parked.size > 0).map((r) => [r.processor.name, r.parked.size]));
  }

  /**
   * Per runner: state, parked count and how many events of its streams it has yet to handle.
   * The lag is a count at most `maxAgeMs` old (default LAG_CACHE_MS).
   */
  async metrics(maxAgeMs = LAG_CACHE_MS): Promise<ProcessorMetrics[]> {
    const lags = await this.lags(maxAgeMs);
    return this.runners.map((r, i) => ({ processor: r.processor.name, state: r.state, parked: r.parked.size, lag: lags[i] ?? 0 }));
  }

  /** Lag per processor name, for the metrics' lag source (cached as in `metrics`). */
  async lagByProcessor(): Promise<Record<string, number>> {
    return Object.fromEntries((await this.metrics()).map((m) => [m.processor, m.lag]));
  }

  private lags(maxAgeMs: number): Promise<number[]> {
    const now = Date.now();
    if (this.lagCount !== null && now - this.lagCount.at < maxAgeMs) return this.lagCount.lags;
    const lags = Promise.all(this.runners.map((r) => r.eventsBehind(LAG_COUNT_CAP)));
    const count = { at: now, lags };
    this.lagCount = count;
    // A failed count is not kept: the next scrape counts again.
    lags.catch(() => {
      if (this.lagCount === count) this.lagCount = null;
    });
    return lags;
  }

  /** Parked events in log order, filtered. */
  listParked(filter: ParkedFilter = {}): ParkedEvent[] {
    return this.runners
      .filter((r) => filter.processor === undefined || r.processor.name === filter.processor)
      .flatMap((r) => r.parked.all())
      .filter((record) => filter.workspaceId === undefined || record.workspaceId === filter.workspaceId)
      .sort(byPosition);
  }

  /**
   * Retries parked events: `id` names one record, whose whole stream is retried in order (an
   * event waiting behind another cannot go first); otherwise every stream the filter selects.
   * Null when `id` names no record the filter allows (callers answer 404).
   */
  async retryParked(selector: ParkedFilter & { readonly id?: string | undefined }): Promise<RetryReport | null> {
    const selected = this.listParked(selector).filter((r) => selector.id === undefined || r.id === selector.id);
    if (selector.id !== undefined && selected.length === 0) return null;
    const streams = new Map<string, { runner: ProjectionRunner; streamId: string }>();
    for (const record of selected) streams.set(`${record.processor}\u0000${record.streamId}`, { runner: this.runner(record.processor), streamId: record.streamId });
    let applied = 0;
    const failed: ParkedEvent[] = [];
    for (const { runner, streamId } of streams.values()) {
      const outcome = await runner.retryStream(streamId);
      applied += outcome.applied;
      if (outcome.failed !== null) failed.push(outcome.failed);
    }
    return { applied, failed };
  }

  status(): Record<string, string> {
    return Object.fromEntries(this.runners.map((r) => [r.processor.name, r.state]));
  }

  /** Projection names: what a rebuild covers (reactors are never rebuilt: re-running effects is no rebuild). */
  projectionNames(): string[] {
    return this.projections.map((r) => r.processor.name);
  }

  /** Rebuilds the named processors and resolves once each has caught up with the log. */
  async rebuild(names: readonly string[], timeoutMs: number): Promise<void> {
    const unknown = names.filter((n) => !this.runners.some((r) => r.processor.name === n));
    if (unknown.length > 0) throw new Error(`unknown projection: ${unknown.join(', ')}`);
    for (const name of names) {
      const runner = this.runner(name);
      await runner.rebuild();
      await runner.untilLive(timeoutMs);
    }
  }

  /** Where a processor has got to in the log (for progress reports). */
  checkpointOf(name: string): Position {
    return this.runner(name).checkpoint;
  }

  private runner(name: string): ProjectionRunner {
    const found = this.runners.find((r) => r.processor.name === name);
    if (found === undefined) throw new Error(`no processor named ${name}`);
    return found;
  }
}
