import { AppError, fold, type Decider, type DomainEvent, type ErrorCode } from '@lore/platform/kernel';

/**
 * Given/when/then for deciders (ARCHITECTURE §3.8): the state is folded from `given` events,
 * `when` decides one command, `then` compares the emitted events and returns the state
 * they lead to (so a test can check `evolve` too), `thenNothingHappened` expects no event (an
 * idempotent repeat, a change that changes nothing), `thenThrows` expects an AppError code.
 *
 *   deciderSpec(memoryDecider).given([created]).when(replace).then([replaced]);
 */
export interface DeciderSpec<C, S, E extends DomainEvent> {
  given(events: readonly E[]): DeciderGiven<C, S, E>;
}

export interface DeciderGiven<C, S, E extends DomainEvent> {
  /** The state folded from the given events. */
  readonly state: S;
  when(command: C): DeciderWhen<S, E>;
}

export interface DeciderWhen<S, E extends DomainEvent> {
  /** Asserts the emitted events equal `expected` (in order) and returns the state after them. */
  then(expected: readonly E[]): S;
  /** Asserts `decide` accepts the command and emits no event; returns the state, unchanged. */
  thenNothingHappened(): S;
  /** Asserts `decide` throws an AppError with this code (and, if given, a message matching `message`). */
  thenThrows(code: ErrorCode, message?: string | RegExp): AppError;
}

export function deciderSpec<C, S, E extends DomainEvent>(decider: Decider<C, S, E>): DeciderSpec<C, S, E> {
  return {
    given(events) {
      const state = fold(decider, events);
      return {
        state,
        when(command) {
          return {
            then(expected) {
              const emitted = decider.decide(command, state);
              expect(emitted).toEqual(expected);
              return emitted.reduce(decider.evolve, state);
            },
            thenNothingHappened() {
              const emitted = decider.decide(command, state);
              if (emitted.length > 0) throw new Error(`expected no events, but decide emitted ${JSON.stringify(emitted)}`);
              return state;
            },
            thenThrows(code, message) {
              let emitted: readonly E[] | undefined;
              let thrown: unknown;
              try {
                emitted = decider.decide(command, state);
              } catch (error) {
                thrown = error;
              }
              if (emitted !== undefined) {
                throw new Error(`expected decide to throw AppError '${code}', but it emitted ${JSON.stringify(emitted)}`);
              }
              if (!(thrown instanceof AppError)) {
                throw new Error(`expected decide to throw AppError '${code}', but it threw ${String(thrown)}`);
              }
              expect(thrown.code).toBe(code);
              if (message !== undefined) expect(thrown.message).toMatch(message);
              return thrown;
            },
          };
        },
      };
    },
  };
}
