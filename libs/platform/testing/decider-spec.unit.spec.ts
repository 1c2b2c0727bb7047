import { conflict, type Decider, type DomainEvent } from '@lore/platform/kernel';
import { deciderSpec } from './decider-spec';

/** The helper is only useful if it can fail: these check that it does, and why. */
type Toggled = DomainEvent<'test.Toggled', { on: boolean }>;
const toggle: Decider<{ kind: 'toggle' } | { kind: 'keep' } | { kind: 'refuse' } | { kind: 'crash' }, { on: boolean }, Toggled> = {
  initialState: () => ({ on: false }),
  decide(command, state) {
    if (command.kind === 'keep') return [];
    if (command.kind === 'refuse') throw conflict('refused');
    if (command.kind === 'crash') throw new TypeError('boom');
    return [{ type: 'test.Toggled', data: { on: !state.on } }];
  },
  evolve: (_state, event) => ({ on: event.data.on }),
};
const spec = deciderSpec(toggle);
const toggled = (on: boolean): Toggled => ({ type: 'test.Toggled', data: { on } });

describe('deciderSpec', () => {
  it('folds the given events into the state', () => {
    expect(spec.given([]).state).toEqual({ on: false });
    expect(spec.given([toggled(true)]).state).toEqual({ on: true });
  });

  it('passes on the expected events and returns the state they lead to', () => {
    expect(spec.given([toggled(true)]).when({ kind: 'toggle' }).then([toggled(false)])).toEqual({ on: false });
  });

  it('fails on other events', () => {
    expect(() => spec.given([]).when({ kind: 'toggle' }).then([toggled(false)])).toThrow();
    expect(() => spec.given([]).when({ kind: 'toggle' }).then([])).toThrow();
  });

  it('passes when nothing happens, returning the state as it was', () => {
    expect(spec.given([toggled(true)]).when({ kind: 'keep' }).thenNothingHappened()).toEqual({ on: true });
  });

  it('fails "nothing happened" on events, and on a refusal (which is not nothing)', () => {
    expect(() => spec.given([]).when({ kind: 'toggle' }).thenNothingHappened()).toThrow(/emitted \[\{"type":"test.Toggled"/);
    expect(() => spec.given([]).when({ kind: 'refuse' }).thenNothingHappened()).toThrow('refused');
  });

  it('passes on the expected error code and message', () => {
    expect(spec.given([]).when({ kind: 'refuse' }).thenThrows('conflict', /refused/).code).toBe('conflict');
  });

  it('fails on another code, another message, a non-AppError, or no error at all', () => {
    expect(() => spec.given([]).when({ kind: 'refuse' }).thenThrows('not_found')).toThrow();
    expect(() => spec.given([]).when({ kind: 'refuse' }).thenThrows('conflict', /other/)).toThrow();
    expect(() => spec.given([]).when({ kind: 'crash' }).thenThrows('internal')).toThrow(/threw TypeError: boom/);
    expect(() => spec.given([]).when({ kind: 'toggle' }).thenThrows('conflict')).toThrow(/emitted/);
  });
});
