import { AppError, newEventId, notFound, noteAppendedStream, requestDeadline, requestMetadata, type Decider, type DomainEvent, type EventMetadata, type Position, type RecordedEvent } from '@lore/platform/kernel';
import { StreamDeletedError, WrongExpectedRevisionError, streamPages, type EventStore, type ExpectedRevision } from '@lore/platform/event-store/port';
import type { AggregateStateCache, CachedAggregateState } from './aggregate-state-cache';
import { StreamTurns } from './stream-turns';

/** Maps a stored event to the current shape of its type (ARCHITECTURE §3.3: stored events are never edited). */
export type Upcaster<E extends DomainEvent> = (event: RecordedEvent) => E;

export interface AggregateType<C, S, E extends DomainEvent> {
  readonly decider: Decider<C, S, E>;
  readonly upcast: Upcaster<E>;
  /**
   * What callers call one of these (`'memory'`, `'API key'`): names it in the 409 a caller
   * gets when concurrent writes could not be resolved. Without it the message says "resource".
   */
  readonly name?: string;
  /**
   * A per-process cache of folded states: with it, a command reads and folds only the events
   * after the cached revision (O(new events), not O(stream length)). Only for deciders whose
   * `evolve` never mutates the state it is given; see {@link AggregateStateCache}.
   */
  readonly cache?: AggregateStateCache<S>;
}

/**
 * Waiting between conflict retries: full-jitter exponential backoff, a delay drawn uniformly
 * from [0, min(capMs, baseMs · 2^retry)) before retry number `retry` (0-based). Spreading the
 * losers out in time is what lets most of a burst of writers to one stream get through,
 * instead of all re-reading and colliding again at once.
 */
export interface RetryBackoff {
  readonly baseMs: number;
  readonly capMs: number;
  /** Uniform in [0, 1); injectable for deterministic tests. */
  readonly random: () => number;
  /** Injectable so tests need no timers. */
  readonly sleep: (ms: number) => Promise<void>;
  /** The clock the request's deadline is on (epoch ms); injectable for tests. */
  readonly now: () => number;
}

/**
 * Measured with tools/bench/contention.bench.mjs (200 concurrent replaces of one memory,
 * standalone, 2 cores): a cap of 64–100 ms keeps too many losers retrying at once, the event
 * loop saturates and each read→append window stretches, so fewer than half get through even
 * with 20–30 retries; a cap of ~256 ms spreads them enough that all get through within 12–20
 * retries in about a second. A lone concurrent writer is still retried within 0–4 ms.
 */
export const DEFAULT_RETRY_BACKOFF: RetryBackoff = {
  baseMs: 4,
  capMs: 256,
  random: Math.random,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: Date.now,
};

/**
 * What a command keeps of its request's remaining budget for the work after its last attempt
 * (read-your-writes, the reply): 40% of it, from 250 ms to 4 s. With the gateway's 10 s, retries
 * stop 6 s in. Retrying on until the caller gives up turned a lost race into a 503 "did not
 * answer" (32 concurrent replaces of one memory, distributed, on a loaded machine).
 */
export function answerReserveMs(remainingMs: number): number {
  return Math.min(4_000, Math.max(250, remainingMs * 0.4));
}

/** The delay before retry number `retry` (0 for the first retry). */
export function retryDelayMs(retry: number, backoff: Pick<RetryBackoff, 'baseMs' | 'capMs' | 'random'>): number {
  return backoff.random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** retry);
}

export interface HandleOptions {
  readonly metadata?: EventMetadata;
  /**
   * How often to re-read and decide again after a concurrent write. Only for commands whose
   * meaning does not depend on what the writer saw (e.g. "replace with X"); 0 surfaces the conflict.
   * With the default backoff, 20 retries let a burst of 200 writers to one stream all through
   * (tools/bench/contention.bench.mjs); each retry that is used waits up to 256 ms. Inside a
   * served request, retries also end in time to answer within its deadline (then 409).
   */
  readonly retries?: number;
  /** Overrides parts of {@link DEFAULT_RETRY_BACKOFF}. */
  readonly backoff?: Partial<RetryBackoff>;
  /**
   * The stream is new by construction (its id was just generated): skip reading it and
   * append with `no_stream`, which still fails loudly if it somehow exists.
   */
  readonly newStream?: boolean;
}

export interface Handled<S, E> {
  readonly state: S;
  /** State before the command: lets a handler answer with what it replaced. */
  readonly previous: S;
  readonly events: readonly E[];
  /** Global position of the last appended event, null when the command changed nothing. */
  readonly position: Position | null;
  /**
   * Global position of the stream's last event as the command left it: the appended one, else
   * the last one it was decided on (null: no stream). Known without another read, so a command
   * that appended nothing (a repeated delete) can wait for what the stream's last write set off.
   */
  readonly head: Position | null;
}

/**
 * The one generic command path: read stream → fold → decide → append with the expected
 * revision; on a conflict, wait (jittered backoff), re-read and decide again when the command
 * allows it. `command` may be a function of the current state, for commands built from it
 * (sealing new content with the aggregate's key, merging with the current version); it runs
 * again on each retry. A conflict that outlasts the retries is an AppError 'conflict' in the
 * caller's terms; the store's WrongExpectedRevisionError (stream, revisions) stays its `cause`.
 * So is one whose next retry (its wait plus about as long as the last attempt took) would end
 * past the request's deadline less {@link answerReserveMs}: the caller gets its 409 in time.
 *
 * Commands to one stream from this process take turns (StreamTurns), so they do not conflict
 * with each other; the expected revision catches writers elsewhere. A turn lasts while the
 * command function runs: it must not send a command to its own stream (that one would wait
 * behind it, for ever without a deadline), and slow work it needs (a model call) is done before.
 *
 * With `aggregate.cache`, a command is first decided on the cached state without reading the
 * stream: an append is checked by its expected revision anyway, and one that conflicts is
 * decided again at once, without a wait or a retry counted, on the cached state plus the
 * events after it (read and folded). So a stale cache costs a failed append, never a wrong
 * decision, and a command from this process's own last write reads nothing. A command that
 * would answer without appending (refused, or no events) reads those newer events first and
 * is decided again, so it never answers from a stale state. The cache is advanced with every
 * state read or appended (never with one that was not stored), and dropped for a stream found
 * deleted.
 */
export async function handleCommand<C, S, E extends DomainEvent>(
  store: EventStore,
  aggregate: AggregateType<C, S, E>,
  streamId: string,
  command: C | ((state: S) => Promise<C> | C),
  options: HandleOptions = {},
): Promise<Handled<S, E>> {
  // Commands to one stream from this process take turns (see StreamTurns).
  const turns = StreamTurns.of(store);
  const turn = turns.take(streamId);
  if (turn !== undefined && !(await inTime(turn, options))) {
    // Its turn would come too late to answer within the request's budget: a 409 in time, as
    // for a command that lost its races; the turn, when it comes, passes straight on.
    void turn.then(() => turns.release(streamId));
    throw new AppError('conflict', conflictMessage(aggregate.name));
  }
  try {
    return await decideAndAppend(store, aggregate, streamId, command, options);
  } finally {
    turns.release(streamId);
  }
}

async function decideAndAppend<C, S, E extends DomainEvent>(
  store: EventStore,
  aggregate: AggregateType<C, S, E>,
  streamId: string,
  command: C | ((state: S) => Promise<C> | C),
  options: HandleOptions,
): Promise<Handled<S, E>> {
  const retries = options.retries ?? 0;
  const backoff: RetryBackoff = { ...DEFAULT_RETRY_BACKOFF, ...options.backoff };
  const cache = aggregate.cache;
  // A new stream has nothing to read; a stream found deleted under a cached state is read whole.
  let readFromCache = cache !== undefined && options.newStream !== true;
  /** The first decision may use the cached state as it is; any later one reads what came after it. */
  let tailRead = false;
  /** The latest stored state this call has seen: survives an eviction between retries. */
  let known: CachedAggregateState<S> | undefined;
  const deadline = requestDeadline();
  const retryUntil = deadline === undefined ? Number.POSITIVE_INFINITY : deadline - answerReserveMs(deadline - backoff.now());
  for (let attempt = 0; ; ) {
    const attemptStarted = backoff.now();
    let current: CurrentState<S>;
    if (options.newStream) current = { state: aggregate.decider.initialState(), revision: -1, unconfirmed: false };
    else if (cache === undefined || !readFromCache) current = await readWhole(store, aggregate, streamId);
    else {
      const cached = newer(known, sameStore(cache.get(streamId), store));
      if (!tailRead && cached !== undefined) {
        known = cached;
        current = { state: cached.state, revision: cached.revision, unconfirmed: true, unread: true };
      } else {
        current = await readAfter(store, aggregate, streamId, cached);
        if (current.revision >= 0 && !current.unconfirmed) {
          known = { state: current.state, revision: current.revision, store };
          cache.set(streamId, known);
        }
      }
      tailRead = true;
    }
    const previous = current.state;
    let decided: { readonly events: readonly E[] } | { readonly refused: unknown };
    try {
      const resolved = typeof command === 'function' ? await (command as (state: S) => Promise<C> | C)(previous) : command;
      decided = { events: aggregate.decider.decide(resolved, previous) };
    } catch (error) {
      decided = { refused: error };
    }
    // A state taken from the cache with nothing newer read may belong to a stream deleted since.
    // An append would find out; an answer without one (refused, or no events) is given only once
    // the stream is known to still exist, else the command is decided again on the empty stream.
    const unanswered = 'refused' in decided || decided.events.length === 0;
    if (unanswered && current.unread === true) continue;
    let head = current.head ?? null;
    if (unanswered && current.unconfirmed) {
      head = await positionAt(store, streamId, current.revision);
      if (head === null) {
        cache?.delete(streamId);
        readFromCache = false;
        continue;
      }
    }
    if ('refused' in decided) throw decided.refused;
    const events = decided.events;
    if (events.length === 0) return { state: previous, previous, events, position: null, head };
    const expected: ExpectedRevision = current.revision < 0 ? 'no_stream' : current.revision;
    try {
      const result = await store.append(
        streamId,
        // Who (the command's actor and workspace) and why (the request it came from, or the
        // stored event a reaction answers: see reactingTo); the command's own metadata goes over it.
        events.map((event) => ({ id: newEventId(), type: event.type, data: event.data, metadata: { ...requestMetadata(), ...options.metadata } })),
        expected,
      );
      noteAppendedStream(streamId);
      const state = events.reduce(aggregate.decider.evolve, previous);
      cache?.set(streamId, { state, revision: result.revision, store });
      return { state, previous, events, position: result.position, head: result.position };
    } catch (error) {
      // Deleted (permanently) between our read and our append: to the caller it is simply gone.
      if (error instanceof StreamDeletedError) {
        cache?.delete(streamId);
        throw notFound(capitalised(aggregate.name ?? 'resource'));
      }
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      // Decided on the cached state unread: decide again on what was stored after it, as a read
      // before deciding would have (no wait, no retry counted).
      if (current.unread === true) continue;
      if (attempt >= retries) throw concurrentWriteConflict(aggregate.name, error);
      const delay = retryDelayMs(attempt, backoff);
      const now = backoff.now();
      if (now + delay + (now - attemptStarted) > retryUntil) throw concurrentWriteConflict(aggregate.name, error);
      await backoff.sleep(delay);
      attempt++;
    }
  }
}

/** The state to decide on and the stream's revision (-1: no stream). */
interface CurrentState<S> {
  readonly state: S;
  readonly revision: number;
  /** Taken from the cache with nothing newer read: the stream may have been deleted since. */
  readonly unconfirmed: boolean;
  /** Taken from the cache without reading the stream: newer events may exist. */
  readonly unread?: boolean;
  /** The global position of the event at `revision`, when it was read. */
  readonly head?: Position | null;
}

async function readWhole<C, S, E extends DomainEvent>(store: EventStore, aggregate: AggregateType<C, S, E>, streamId: string): Promise<CurrentState<S>> {
  const folded = await foldPages(store, aggregate, streamId, aggregate.decider.initialState(), 0);
  if (folded === null) return { state: aggregate.decider.initialState(), revision: -1, unconfirmed: false, head: null };
  return { state: folded.state, revision: folded.last?.revision ?? -1, unconfirmed: false, head: folded.last?.position ?? null };
}

/** Reads only the events after `cached` (the whole stream without it) and folds them onto it. */
async function readAfter<C, S, E extends DomainEvent>(
  store: EventStore,
  aggregate: AggregateType<C, S, E>,
  streamId: string,
  cached: CachedAggregateState<S> | undefined,
): Promise<CurrentState<S>> {
  if (cached === undefined) return readWhole(store, aggregate, streamId);
  const folded = await foldPages(store, aggregate, streamId, cached.state, cached.revision + 1);
  if (folded === null) return readWhole(store, aggregate, streamId);
  const last = folded.last;
  if (last === undefined) return { state: cached.state, revision: cached.revision, unconfirmed: true };
  return { state: folded.state, revision: last.revision, unconfirmed: false, head: last.position };
}

/**
 * Folds the stream's events from `fromRevision` onto `state`, a page a turn (`streamPages`);
 * `last` is the last event read. Null when the stream was deleted between two pages: as one
 * read would have found, it is gone.
 */
async function foldPages<C, S, E extends DomainEvent>(
  store: EventStore,
  aggregate: AggregateType<C, S, E>,
  streamId: string,
  state: S,
  fromRevision: number,
): Promise<{ readonly state: S; readonly last: RecordedEvent | undefined } | null> {
  let folded = state;
  let last: RecordedEvent | undefined;
  let pages = 0;
  for await (const page of streamPages(store, streamId, fromRevision)) {
    pages += 1;
    folded = page.map(aggregate.upcast).reduce(aggregate.decider.evolve, folded);
    last = page.at(-1);
  }
  if (pages > 1 && last !== undefined && (await positionAt(store, streamId, last.revision)) === null) return null;
  return { state: folded, last };
}

/** The position of the stream's event at `revision`; null when the stream no longer holds it (deleted): a one-event read. */
async function positionAt(store: EventStore, streamId: string, revision: number): Promise<Position | null> {
  const [event] = await store.readStream(streamId, { fromRevision: revision, maxCount: 1 });
  return event?.revision === revision ? event.position : null;
}

function sameStore<S>(entry: CachedAggregateState<S> | undefined, store: EventStore): CachedAggregateState<S> | undefined {
  return entry?.store === store ? entry : undefined;
}

function newer<S>(a: CachedAggregateState<S> | undefined, b: CachedAggregateState<S> | undefined): CachedAggregateState<S> | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return b.revision > a.revision ? b : a;
}

function capitalised(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}

function concurrentWriteConflict(name: string | undefined, cause: WrongExpectedRevisionError): AppError {
  const error = new AppError('conflict', conflictMessage(name));
  error.cause = cause;
  return error;
}

function conflictMessage(name: string | undefined): string {
  return `The ${name ?? 'resource'} was changed by another request at the same time; retry.`;
}

/**
 * Waits for a command's turn on its stream: true once it has come, false when the request's
 * deadline less its answer reserve (see answerReserveMs) comes first. Without a deadline (a
 * reactor, a worker), it waits as long as it takes.
 */
async function inTime(turn: Promise<void>, options: HandleOptions): Promise<boolean> {
  const deadline = requestDeadline();
  if (deadline === undefined) {
    await turn;
    return true;
  }
  const now = (options.backoff?.now ?? DEFAULT_RETRY_BACKOFF.now)();
  const left = deadline - answerReserveMs(deadline - now) - now;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, left))));
  try {
    return await Promise.race([turn.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The current state of one aggregate, for reads that decide nothing (a command's later step, a
 * query that needs the write model). With `aggregate.cache`, only the events after the cached
 * revision are read (the entry moves on; a stream not cached gets no entry); when there are none,
 * a one-event read confirms the stream still exists (a deleted stream reads as never written, as
 * without the cache).
 */
export async function readAggregateState<C, S, E extends DomainEvent>(store: EventStore, aggregate: AggregateType<C, S, E>, streamId: string): Promise<S> {
  const cache = aggregate.cache;
  if (cache === undefined) return (await readWhole(store, aggregate, streamId)).state;
  const current = await readAfter(store, aggregate, streamId, sameStore(cache.get(streamId), store));
  if (current.unconfirmed && (await positionAt(store, streamId, current.revision)) === null) {
    cache.delete(streamId);
    return (await readWhole(store, aggregate, streamId)).state;
  }
  // Only an entry there already moves on: a read alone (a sweep over hundreds of streams) keeps nothing new.
  if (current.revision >= 0 && cache.get(streamId) !== undefined) cache.set(streamId, { state: current.state, revision: current.revision, store });
  return current.state;
}
