import { fold, newUuid, type Decider, type DomainEvent, type EventMetadata, type Position, type RecordedEvent } from '@lore/platform/kernel';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from '@lore/platform/event-store/port';

/** Maps a stored event to the current shape of its type (ARCHITECTURE §3.3: stored events are never edited). */
export type Upcaster<E extends DomainEvent> = (event: RecordedEvent) => E;

export interface AggregateType<C, S, E extends DomainEvent> {
  readonly decider: Decider<C, S, E>;
  readonly upcast: Upcaster<E>;
}

export interface HandleOptions {
  readonly metadata?: EventMetadata;
  /**
   * How often to re-read and decide again after a concurrent write. Only for commands whose
   * meaning does not depend on what the writer saw (e.g. "replace with X"); 0 surfaces the conflict.
   */
  readonly retries?: number;
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
}

/**
 * The one generic command path: read stream → fold → decide → append with the expected
 * revision; on a conflict, re-read and decide again when the command allows it. `command`
 * may be a function of the current state, for commands built from it (sealing new content
 * with the aggregate's key, merging with the current version); it runs again on each retry.
 */
export async function handleCommand<C, S, E extends DomainEvent>(
  store: EventStore,
  aggregate: AggregateType<C, S, E>,
  streamId: string,
  command: C | ((state: S) => Promise<C> | C),
  options: HandleOptions = {},
): Promise<Handled<S, E>> {
  const retries = options.retries ?? 0;
  for (let attempt = 0; ; attempt++) {
    const recorded = options.newStream ? [] : await store.readStream(streamId);
    const previous = fold(aggregate.decider, recorded.map(aggregate.upcast));
    const resolved = typeof command === 'function' ? await (command as (state: S) => Promise<C> | C)(previous) : command;
    const events = aggregate.decider.decide(resolved, previous);
    if (events.length === 0) return { state: previous, previous, events, position: null };
    const last = recorded[recorded.length - 1];
    const expected: ExpectedRevision = last === undefined ? 'no_stream' : last.revision;
    try {
      const result = await store.append(
        streamId,
        events.map((event) => ({ id: newUuid(), type: event.type, data: event.data, metadata: options.metadata ?? {} })),
        expected,
      );
      const state = events.reduce(aggregate.decider.evolve, previous);
      return { state, previous, events, position: result.position };
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError && attempt < retries) continue;
      throw error;
    }
  }
}
