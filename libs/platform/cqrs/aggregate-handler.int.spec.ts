import { randomUUID } from 'node:crypto';
import { AppError, conflict, START, type Decider, type DomainEvent, type RecordedEvent } from '@lore/platform/kernel';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from '@lore/platform/event-store/port';
import { openSqliteEventStore, type SqliteEventStore } from '@lore/platform/event-store/sqlite';
import { handleCommand, type AggregateType } from './aggregate-handler';

/** A counter: each increment records the value it went from and to, so a re-decision is visible in the data. */
type Incremented = DomainEvent<'counter.Incremented', { from: number; to: number }>;
type CounterCommand = { kind: 'increment'; by: number } | { kind: 'noop' } | { kind: 'capped'; by: number; max: number };
interface CounterState {
  readonly value: number;
}

const counterDecider: Decider<CounterCommand, CounterState, Incremented> = {
  initialState: () => ({ value: 0 }),
  decide(command, state) {
    switch (command.kind) {
      case 'increment':
        return [{ type: 'counter.Incremented', data: { from: state.value, to: state.value + command.by } }];
      case 'noop':
        return [];
      case 'capped':
        if (state.value + command.by > command.max) throw conflict(`counter would pass ${command.max}`);
        return [{ type: 'counter.Incremented', data: { from: state.value, to: state.value + command.by } }];
    }
  },
  evolve: (_state, event) => ({ value: event.data.to }),
};

/** Stored events are checked on the way in, and an older 'counter.Bumped' shape is upcast. */
const counter: AggregateType<CounterCommand, CounterState, Incremented> = {
  decider: counterDecider,
  upcast(recorded: RecordedEvent): Incremented {
    const data = recorded.data as { from?: unknown; to?: unknown; n?: unknown };
    if (recorded.type === 'counter.Bumped' && typeof data.n === 'number') return { type: 'counter.Incremented', data: { from: data.n - 1, to: data.n } };
    if (recorded.type === 'counter.Incremented' && typeof data.from === 'number' && typeof data.to === 'number') {
      return { type: 'counter.Incremented', data: { from: data.from, to: data.to } };
    }
    throw new Error(`malformed counter event ${recorded.type}`);
  },
};

const incremented = (from: number, to: number) => ({ id: randomUUID(), type: 'counter.Incremented', data: { from, to } });

/** The real store, with each append's expected revision noted on the way through. */
function recordingAppends(store: EventStore): { store: EventStore; expected: ExpectedRevision[] } {
  const expected: ExpectedRevision[] = [];
  const proxy = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') {
        return (streamId: string, events: Parameters<EventStore['append']>[1], revision: ExpectedRevision) => {
          expected.push(revision);
          return target.append(streamId, events, revision);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: proxy, expected };
}

describe('handleCommand (SQLite event store)', () => {
  let events: SqliteEventStore;
  const stream = 'counter-1';

  beforeEach(() => {
    events = openSqliteEventStore({ path: ':memory:' });
  });

  afterEach(async () => {
    await events.close();
  });

  it('appends the first events with no_stream, then with the exact current revision', async () => {
    const { store, expected } = recordingAppends(events);

    const first = await handleCommand(store, counter, stream, { kind: 'increment', by: 2 });
    const second = await handleCommand(store, counter, stream, { kind: 'increment', by: 3 });
    const third = await handleCommand(store, counter, stream, { kind: 'increment', by: 1 });

    expect(expected).toEqual(['no_stream', 0, 1]);
    expect(first).toMatchObject({ previous: { value: 0 }, state: { value: 2 } });
    expect(second).toMatchObject({ previous: { value: 2 }, state: { value: 5 } });
    expect(third.state).toEqual({ value: 6 });
    const stored = await events.readStream(stream);
    expect(stored.map((e) => [e.revision, e.data])).toEqual([
      [0, { from: 0, to: 2 }],
      [1, { from: 2, to: 5 }],
      [2, { from: 5, to: 6 }],
    ]);
  });

  it('returns the position of the appended event and the events it appended', async () => {
    await events.append('other-1', [incremented(0, 1)], 'no_stream');
    const handled = await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
    expect(handled.events).toEqual([{ type: 'counter.Incremented', data: { from: 0, to: 1 } }]);
    expect(handled.position).toEqual(await events.headPosition());
    const [stored] = await events.readStream(stream);
    expect(stored?.position).toEqual(handled.position);
  });

  it('records the given metadata with every event', async () => {
    await handleCommand(events, counter, stream, { kind: 'increment', by: 1 }, { metadata: { actor: 'user:u1', correlationId: 'req-1' } });
    const [stored] = await events.readStream(stream);
    expect(stored?.metadata).toMatchObject({ actor: 'user:u1', correlationId: 'req-1' });
  });

  it('folds stored events through the upcaster', async () => {
    await events.append(stream, [{ id: randomUUID(), type: 'counter.Bumped', data: { n: 4 } }], 'no_stream');
    const handled = await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
    expect(handled.previous).toEqual({ value: 4 });
    expect(handled.state).toEqual({ value: 5 });
  });

  it('refuses to decide on a stream holding an event the upcaster rejects, and appends nothing', async () => {
    await events.append(stream, [{ id: randomUUID(), type: 'counter.Incremented', data: { to: 'x' } }], 'no_stream');
    await expect(handleCommand(events, counter, stream, { kind: 'increment', by: 1 })).rejects.toThrow(/malformed/);
    expect(await events.readStream(stream)).toHaveLength(1);
  });

  describe('a command that produces no events', () => {
    it('appends nothing to an existing stream and returns position null', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const head = await events.headPosition();
      const { store, expected } = recordingAppends(events);

      const handled = await handleCommand(store, counter, stream, { kind: 'noop' });

      expect(handled).toEqual({ state: { value: 1 }, previous: { value: 1 }, events: [], position: null });
      expect(expected).toEqual([]);
      expect(await events.headPosition()).toEqual(head);
      expect(await events.readStream(stream)).toHaveLength(1);
    });

    it('does not create a stream that does not exist', async () => {
      const handled = await handleCommand(events, counter, stream, { kind: 'noop' });
      expect(handled.position).toBeNull();
      expect(await events.readStream(stream)).toEqual([]);
      expect(await events.headPosition()).toEqual(START);
    });
  });

  it('appends nothing when the decider refuses the command', async () => {
    await handleCommand(events, counter, stream, { kind: 'increment', by: 5 });
    const failure = handleCommand(events, counter, stream, { kind: 'capped', by: 1, max: 5 });
    await expect(failure).rejects.toBeInstanceOf(AppError);
    await expect(failure).rejects.toMatchObject({ code: 'conflict' });
    expect(await events.readStream(stream)).toHaveLength(1);
  });

  describe('a concurrent writer', () => {
    /** A command builder that lets another writer append right after the handler has read the stream. */
    function racing(times: number): { command: (state: CounterState) => Promise<CounterCommand>; seen: CounterState[] } {
      const seen: CounterState[] = [];
      let raced = 0;
      return {
        seen,
        command: async (state) => {
          seen.push(state);
          if (raced < times) {
            raced++;
            const current = await events.readStream(stream);
            const last = current[current.length - 1];
            const value = last === undefined ? 0 : (last.data as { to: number }).to;
            await events.append(stream, [incremented(value, value + 100)], last === undefined ? 'no_stream' : last.revision);
          }
          return { kind: 'increment', by: 1 };
        },
      };
    }

    it('surfaces WrongExpectedRevisionError when retries is 0, and appends nothing', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(1);

      const failure = handleCommand(events, counter, stream, command, { retries: 0 });

      await expect(failure).rejects.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(failure).rejects.toMatchObject({ code: 'conflict', streamId: stream, expected: 0, actual: 1 });
      expect(seen).toHaveLength(1);
      const stored = await events.readStream(stream);
      expect(stored.map((e) => e.data)).toEqual([
        { from: 0, to: 1 },
        { from: 1, to: 101 },
      ]);
    });

    it('surfaces the conflict by default (no retries option)', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      await expect(handleCommand(events, counter, stream, racing(1).command)).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    });

    it('conflicts when another writer creates the stream first (no_stream)', async () => {
      const failure = handleCommand(events, counter, stream, racing(1).command, { retries: 0 });
      await expect(failure).rejects.toMatchObject({ expected: 'no_stream', actual: 0 });
      expect(await events.readStream(stream)).toHaveLength(1);
    });

    it('is retried when retries > 0, deciding again on the newer state', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(1);
      const { store, expected } = recordingAppends(events);

      const handled = await handleCommand(store, counter, stream, command, { retries: 1 });

      expect(seen).toEqual([{ value: 1 }, { value: 101 }]);
      expect(expected).toEqual([0, 1]);
      expect(handled.previous).toEqual({ value: 101 });
      expect(handled.state).toEqual({ value: 102 });
      expect(handled.events).toEqual([{ type: 'counter.Incremented', data: { from: 101, to: 102 } }]);
      const stored = await events.readStream(stream);
      expect(stored.map((e) => [e.revision, e.data])).toEqual([
        [0, { from: 0, to: 1 }],
        [1, { from: 1, to: 101 }],
        [2, { from: 101, to: 102 }],
      ]);
      expect(handled.position).toEqual(stored[2]?.position);
    });

    it('re-checks the decider on the newer state: a rule that now fails is refused', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      let raced = false;
      const failure = handleCommand(
        events,
        counter,
        stream,
        async (): Promise<CounterCommand> => {
          if (!raced) {
            raced = true;
            await events.append(stream, [incremented(1, 101)], 0);
          }
          return { kind: 'capped', by: 1, max: 50 };
        },
        { retries: 3 },
      );
      await expect(failure).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('50') });
      await expect(failure).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await events.readStream(stream)).toHaveLength(2);
    });

    it('gives up after the allowed retries', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(3);

      await expect(handleCommand(events, counter, stream, command, { retries: 2 })).rejects.toBeInstanceOf(WrongExpectedRevisionError);

      expect(seen).toHaveLength(3);
      expect((await events.readStream(stream)).map((e) => (e.data as { to: number }).to)).toEqual([1, 101, 201, 301]);
    });

    it('succeeds on the last allowed retry', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(2);
      const handled = await handleCommand(events, counter, stream, command, { retries: 2 });
      expect(seen).toHaveLength(3);
      expect(handled.state).toEqual({ value: 202 });
    });

    it('retries five racing handlers into one consistent stream', async () => {
      await Promise.all(Array.from({ length: 5 }, () => handleCommand(events, counter, stream, { kind: 'increment', by: 1 }, { retries: 10 })));
      const stored = await events.readStream(stream);
      expect(stored.map((e) => e.data)).toEqual([0, 1, 2, 3, 4].map((n) => ({ from: n, to: n + 1 })));
    });
  });
});
