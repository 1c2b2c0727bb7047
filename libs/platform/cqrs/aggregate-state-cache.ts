import type { EventStore } from '@lore/platform/event-store/port';

/** A folded aggregate state and the revision of the last stored event folded into it. */
export interface CachedAggregateState<S> {
  readonly state: S;
  /** Revision of the last event folded into `state` (≥ 0: a cached stream always exists). */
  readonly revision: number;
  /**
   * The store the events were read from or appended to. Aggregate types are module-level
   * constants, so one cache can meet several stores in a process (a fresh store per test, two
   * apps in one process): the handler treats an entry from another store as a miss.
   */
  readonly store: EventStore;
}

export interface AggregateStateCacheOptions<S = unknown> {
  /** How many streams to keep; the least recently used is evicted beyond it. Default 1,000. */
  readonly maxEntries?: number;
  /** With `weigh`: the most the kept states may weigh together (least recently used evicted beyond it; the newest is always kept). */
  readonly maxWeight?: number;
  /** A state's weight (e.g. the bytes of the text it holds). */
  readonly weigh?: (state: S) => number;
}

export const DEFAULT_AGGREGATE_STATE_CACHE_ENTRIES = 1_000;

/**
 * A per-process LRU of `streamId → { state, revision }`, so that `handleCommand` reads and folds
 * only the events after the cached revision instead of the whole stream (for aggregates with
 * long streams, e.g. a conversation holding every message as an event).
 *
 * It holds only states folded from stored events (read, or appended by this process), never a
 * decision that was not stored. The handler decides on an entry before reading the stream; an
 * append from it is checked by its expected revision, and a conflict, a refusal or a no-op reads
 * from `revision + 1` and decides again, so another process's appends are picked up before any
 * answer is given. Entries remember their store (see
 * {@link CachedAggregateState.store}).
 *
 * The cached state object is shared by every command on the stream and handed to callers as
 * `Handled.state` / `previous`: a decider used with a cache must never mutate its state (evolve
 * returns a new value), and callers must not mutate what they are given.
 */
export class AggregateStateCache<S> {
  readonly maxEntries: number;
  /** Map iteration order is insertion order: the first key is the least recently used. */
  private readonly entries = new Map<string, CachedAggregateState<S>>();
  private readonly weights = new Map<string, number>();
  private weight = 0;

  constructor(private readonly options: AggregateStateCacheOptions<S> = {}) {
    const maxEntries = options.maxEntries ?? DEFAULT_AGGREGATE_STATE_CACHE_ENTRIES;
    if (!Number.isInteger(maxEntries) || maxEntries < 1) throw new RangeError(`maxEntries must be a positive integer, got ${maxEntries}`);
    this.maxEntries = maxEntries;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The entry for the stream, marking it most recently used. */
  get(streamId: string): CachedAggregateState<S> | undefined {
    const entry = this.entries.get(streamId);
    if (entry === undefined) return undefined;
    this.entries.delete(streamId);
    this.entries.set(streamId, entry);
    return entry;
  }

  /**
   * Stores the entry unless the one held, from the same store, is at the same or a later revision
   * (a slower, older command finishing after a newer one must not move the cache back). Returns
   * whether it stored.
   */
  set(streamId: string, entry: CachedAggregateState<S>): boolean {
    const held = this.entries.get(streamId);
    if (held !== undefined && held.store === entry.store && held.revision >= entry.revision) return false;
    this.delete(streamId);
    this.entries.set(streamId, entry);
    const weight = this.options.weigh?.(entry.state) ?? 0;
    this.weights.set(streamId, weight);
    this.weight += weight;
    const maxWeight = this.options.maxWeight ?? Number.POSITIVE_INFINITY;
    while (this.entries.size > this.maxEntries || (this.weight > maxWeight && this.entries.size > 1)) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.delete(oldest.value);
    }
    return true;
  }

  delete(streamId: string): boolean {
    this.weight -= this.weights.get(streamId) ?? 0;
    this.weights.delete(streamId);
    return this.entries.delete(streamId);
  }

  clear(): void {
    this.entries.clear();
    this.weights.clear();
    this.weight = 0;
  }
}
