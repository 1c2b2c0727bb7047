import type { DomainEvent } from './events';

/**
 * The functional core of an aggregate: `decide` turns a command and the current state into
 * events (or throws an AppError), `evolve` folds one event into the state. No I/O: time
 * and ids arrive inside the command.
 */
export interface Decider<C, S, E extends DomainEvent> {
  readonly initialState: () => S;
  readonly decide: (command: C, state: S) => readonly E[];
  readonly evolve: (state: S, event: E) => S;
}

export function fold<S, E extends DomainEvent>(decider: Pick<Decider<never, S, E>, 'initialState' | 'evolve'>, events: readonly E[]): S {
  return events.reduce(decider.evolve, decider.initialState());
}
