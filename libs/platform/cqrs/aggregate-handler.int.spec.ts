import { randomUUID } from 'node:crypto';
import { AppError, conflict, reactingTo, START, withRequestContext, type Decider, type DomainEvent, type RecordedEvent } from '@lore/platform/kernel';
import { WrongExpectedRevisionError, type EventStore, type ExpectedRevision } from '@lore/platform/event-store/port';
import { openSqliteEventStore, type SqliteEventStore } from '@lore/platform/event-store/sqlite';
import { handleCommand, retryDelayMs, type AggregateType, type RetryBackoff } from './aggregate-handler';

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
  name: 'counter',
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

/** What a caller reads when concurrent writes to a counter could not be resolved. */
const COUNTER_CONFLICT = 'The counter was changed by another request at the same time; retry.';

/** Retries without waiting: these tests are about what is decided, not about time. */
const noWait: Partial<RetryBackoff> = { sleep: async () => undefined };

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

  it('records who and why from the context it runs in: a served request, or a reaction to a stored event', async () => {
    await withRequestContext({ requestId: 'req-9' }, () => handleCommand(events, counter, stream, { kind: 'increment', by: 1 }, { metadata: { actor: 'user:u1' } }));
    const [cause] = await events.readStream(stream);
    expect(cause?.metadata).toMatchObject({ actor: 'user:u1', requestId: 'req-9', correlationId: 'req-9' });
    if (cause === undefined) throw new Error('nothing stored');

    // A reaction: caused by the stored event, in its correlation, on its actor's behalf; no request of its own.
    await withRequestContext({ requestId: 'req-that-woke-it' }, () =>
      reactingTo(cause, 'counter-reactor', () => handleCommand(events, counter, 'counter-2', { kind: 'increment', by: 1 }, { metadata: { workspaceId: 'ws' } })),
    );
    const [reaction] = await events.readStream('counter-2');
    expect(reaction?.metadata).toMatchObject({ causationId: cause.id, correlationId: 'req-9', actor: 'user:u1', workspaceId: 'ws' });
    expect(reaction?.metadata).not.toHaveProperty('requestId');
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
    it('appends nothing to an existing stream and returns position null, and the stream\'s last position as its head', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const head = await events.headPosition();
      const { store, expected } = recordingAppends(events);

      const handled = await handleCommand(store, counter, stream, { kind: 'noop' });

      expect(handled).toEqual({ state: { value: 1 }, previous: { value: 1 }, events: [], position: null, head });
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

    it('surfaces a conflict in the caller\'s terms when retries is 0, and appends nothing', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(1);

      const failure = handleCommand(events, counter, stream, command, { retries: 0 });

      await expect(failure).rejects.toBeInstanceOf(AppError);
      await expect(failure).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
      await expect(failure).rejects.toMatchObject({ code: 'conflict', message: COUNTER_CONFLICT });
      // The store's details stay on the cause, for logs; none of them reach the message.
      await expect(failure).rejects.toMatchObject({ cause: { streamId: stream, expected: 0, actual: 1 } });
      const error = (await failure.catch((e: unknown) => e)) as AppError;
      expect(error.cause).toBeInstanceOf(WrongExpectedRevisionError);
      expect(error.message).not.toContain(stream);
      expect(error.message).not.toMatch(/\d/);
      expect(JSON.stringify(error.toJSON())).not.toContain(stream);
      expect(seen).toHaveLength(1);
      const stored = await events.readStream(stream);
      expect(stored.map((e) => e.data)).toEqual([
        { from: 0, to: 1 },
        { from: 1, to: 101 },
      ]);
    });

    it('surfaces the conflict by default (no retries option)', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      await expect(handleCommand(events, counter, stream, racing(1).command)).rejects.toMatchObject({ code: 'conflict', message: COUNTER_CONFLICT });
    });

    it('names an aggregate without a name generically', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const unnamed: AggregateType<CounterCommand, CounterState, Incremented> = { decider: counter.decider, upcast: counter.upcast };
      await expect(handleCommand(events, unnamed, stream, racing(1).command)).rejects.toMatchObject({
        code: 'conflict',
        message: 'The resource was changed by another request at the same time; retry.',
      });
    });

    it('conflicts when another writer creates the stream first (no_stream)', async () => {
      const failure = handleCommand(events, counter, stream, racing(1).command, { retries: 0 });
      await expect(failure).rejects.toMatchObject({ code: 'conflict', message: COUNTER_CONFLICT, cause: { expected: 'no_stream', actual: 0 } });
      expect(await events.readStream(stream)).toHaveLength(1);
    });

    it('is retried when retries > 0, deciding again on the newer state', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(1);
      const { store, expected } = recordingAppends(events);

      const handled = await handleCommand(store, counter, stream, command, { retries: 1, backoff: noWait });

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
        { retries: 3, backoff: noWait },
      );
      await expect(failure).rejects.toMatchObject({ code: 'conflict', message: expect.stringContaining('50') });
      await expect(failure).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
      expect(await events.readStream(stream)).toHaveLength(2);
    });

    it('gives up after the allowed retries', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(3);

      await expect(handleCommand(events, counter, stream, command, { retries: 2, backoff: noWait })).rejects.toMatchObject({ code: 'conflict', message: COUNTER_CONFLICT });

      expect(seen).toHaveLength(3);
      expect((await events.readStream(stream)).map((e) => (e.data as { to: number }).to)).toEqual([1, 101, 201, 301]);
    });

    it('succeeds on the last allowed retry', async () => {
      await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
      const { command, seen } = racing(2);
      const handled = await handleCommand(events, counter, stream, command, { retries: 2, backoff: noWait });
      expect(seen).toHaveLength(3);
      expect(handled.state).toEqual({ value: 202 });
    });

    describe('backoff between retries', () => {
      it('waits a full-jitter exponential delay before each retry, up to the cap', async () => {
        await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
        const waits: number[] = [];
        const backoff: Partial<RetryBackoff> = { baseMs: 4, capMs: 20, random: () => 0.5, sleep: async (ms) => void waits.push(ms) };

        const handled = await handleCommand(events, counter, stream, racing(4).command, { retries: 4, backoff });

        expect(waits).toEqual([2, 4, 8, 10]);
        expect(handled.state).toEqual({ value: 402 });
      });

      it('does not wait after the last allowed retry: the conflict is surfaced at once', async () => {
        await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
        const waits: number[] = [];
        const failure = handleCommand(events, counter, stream, racing(3).command, { retries: 2, backoff: { sleep: async (ms) => void waits.push(ms) } });
        await expect(failure).rejects.toMatchObject({ code: 'conflict' });
        expect(waits).toHaveLength(2);
      });

      it('inside a request, stops retrying in time to answer 409 within its deadline', async () => {
        await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
        // A fake clock: each sleep advances it; the request has 1 s left when the command starts.
        let now = 1_000_000;
        const waits: number[] = [];
        const backoff: Partial<RetryBackoff> = { baseMs: 100, capMs: 100, random: () => 0.99, now: () => now, sleep: async (ms) => void (waits.push(ms), (now += ms)) };
        const failure = withRequestContext({ requestId: 'r1', deadline: now + 1_000 }, () => handleCommand(events, counter, stream, racing(100).command, { retries: 50, backoff }));
        await expect(failure).rejects.toMatchObject({ code: 'conflict', message: COUNTER_CONFLICT });
        // 40% (400 ms) is kept for answering: 6 waits of 99 ms end before 600 ms, a seventh would not.
        expect(waits).toHaveLength(6);
        expect(now - 1_000_000).toBeLessThanOrEqual(600);
      });

      it('outside a request (a reactor, a worker), retries as often as allowed', async () => {
        await handleCommand(events, counter, stream, { kind: 'increment', by: 1 });
        let now = 1_000_000;
        const backoff: Partial<RetryBackoff> = { baseMs: 100, capMs: 100, random: () => 0.99, now: () => now, sleep: async (ms) => void (now += ms) };
        const handled = await handleCommand(events, counter, stream, racing(20).command, { retries: 20, backoff });
        expect(handled.state).toEqual({ value: 2002 });
      });

      it('draws each delay uniformly from [0, min(cap, base · 2^retry))', () => {
        const at = (retry: number, random: number) => retryDelayMs(retry, { baseMs: 4, capMs: 256, random: () => random });
        expect(at(0, 0)).toBe(0);
        expect(at(0, 0.5)).toBe(2);
        expect(at(3, 0.5)).toBe(16);
        expect(at(6, 0.5)).toBe(128);
        expect(at(20, 0.5)).toBe(128);
        expect(at(20, 0.999)).toBeLessThan(256);
      });
    });

    it('retries five racing handlers into one consistent stream', async () => {
      await Promise.all(Array.from({ length: 5 }, () => handleCommand(events, counter, stream, { kind: 'increment', by: 1 }, { retries: 10 })));
      const stored = await events.readStream(stream);
      expect(stored.map((e) => e.data)).toEqual([0, 1, 2, 3, 4].map((n) => ({ from: n, to: n + 1 })));
    });
  });
});
