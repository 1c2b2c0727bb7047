import type { DomainEvent } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import { openSqliteEventStore, type SqliteEventStore } from '@lore/platform/event-store/sqlite';
import { handleCommand, type AggregateType, type RetryBackoff } from './aggregate-handler';
import { StreamTurns } from './stream-turns';

const noWait: Partial<RetryBackoff> = { sleep: async () => undefined };

/** The same events through an event store object of its own: a writer in another process, to this one's command turns. */
function elsewhere(store: EventStore): EventStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

describe('handleCommand, many writers to one stream (SQLite event store)', () => {
  let events: SqliteEventStore;

  beforeEach(() => {
    events = openSqliteEventStore({ path: ':memory:' });
  });

  afterEach(async () => {
    await events.close();
  });

  /**
   * "Make it say X" from many writers at once, as concurrent replaces of one memory are. A
   * writer that loses the race can only lose to another writer's success, so with N writers
   * and N − 1 retries every one of them must get through.
   */
  describe('a burst of replace-like commands on one stream', () => {
    const writers = 20;
    const values = Array.from({ length: writers }, (_, i) => `v${i + 1}`);
    const register = 'register-1';

    /** Each writer on an event store of its own over the same events, as in another process: they race. */
    async function burst(retries: number, { sameProcess = false } = {}) {
      const { aggregate, decisions } = countingRegister();
      const storeOf = () => (sameProcess ? events : elsewhere(events));
      const outcomes = await Promise.allSettled(values.map((value) => handleCommand(storeOf(), aggregate, register, { value }, { retries, backoff: noWait })));
      const stored = (await events.readStream(register)).map((e) => e.data as Replaced['data']);
      return {
        succeeded: outcomes.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : [])),
        failed: outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason as unknown] : [])),
        stored,
        decisions: decisions(),
      };
    }

    it('with retries, every writer succeeds and every success is visible exactly once, in one unbroken chain', async () => {
      const { succeeded, failed, stored, decisions } = await burst(writers - 1);

      expect(failed).toEqual([]);
      expect(succeeded).toHaveLength(writers);
      // The retry path is what made it pass: writers lost the race and decided again.
      expect(decisions).toBeGreaterThan(writers);
      expect(stored.map((d) => d.to).sort()).toEqual([...values].sort());
      stored.forEach((d, i) => expect(d.from).toBe(i === 0 ? null : stored[i - 1]?.to));
      // Each success answers with the version it actually replaced; no two replaced the same one.
      expect(new Set(succeeded.map((h) => h.previous.value)).size).toBe(writers);
      for (const h of succeeded) expect(stored).toContainEqual({ from: h.previous.value, to: h.state.value });
    });

    it('from one process, takes turns: every writer decides once, on what the one before stored, and none conflicts even without retries', async () => {
      const { succeeded, failed, stored, decisions } = await burst(0, { sameProcess: true });

      expect(failed).toEqual([]);
      expect(decisions).toBe(writers);
      expect(stored.map((d) => d.to)).toEqual(values);
      stored.forEach((d, i) => expect(d.from).toBe(i === 0 ? null : stored[i - 1]?.to));
      expect(succeeded.map((h) => h.previous.value)).toEqual([null, ...values.slice(0, -1)]);
    });

    it('lets the next command on a stream have its turn when one fails', async () => {
      const { aggregate } = countingRegister();
      const failing = handleCommand(events, aggregate, register, () => Promise.reject(new Error('refused')));
      const next = handleCommand(events, aggregate, register, { value: 'after' });
      await expect(failing).rejects.toThrow('refused');
      await expect(next).resolves.toMatchObject({ state: { value: 'after' } });
      expect(StreamTurns.of(events).busy).toBe(0);
    });

    it('without retries, the same burst conflicts, in the caller\'s terms, and only the successes are stored', async () => {
      const { succeeded, failed, stored, decisions } = await burst(0);

      expect(decisions).toBe(writers);
      expect(failed.length).toBeGreaterThanOrEqual(writers / 2);
      for (const error of failed) expect(error).toMatchObject({ code: 'conflict', message: 'The register was changed by another request at the same time; retry.' });
      expect(stored.map((d) => d.to).sort()).toEqual(succeeded.map((h) => h.state.value).sort());
    });
  });
});

/** "Make it say X": each event records the value it replaced, so a lost update shows as a broken chain. */
type Replaced = DomainEvent<'register.Replaced', { from: string | null; to: string }>;
interface RegisterState {
  readonly value: string | null;
}

function countingRegister(): { aggregate: AggregateType<{ value: string }, RegisterState, Replaced>; decisions: () => number } {
  let decisions = 0;
  return {
    decisions: () => decisions,
    aggregate: {
      name: 'register',
      decider: {
        initialState: () => ({ value: null }),
        decide(command, state) {
          decisions++;
          return [{ type: 'register.Replaced', data: { from: state.value, to: command.value } }];
        },
        evolve: (_state, event) => ({ value: event.data.to }),
      },
      upcast: (recorded) => ({ type: 'register.Replaced', data: recorded.data as Replaced['data'] }),
    },
  };
}
