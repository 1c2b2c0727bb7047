import { randomUUID } from 'node:crypto';
import { conflict, notFound, type Decider, type DomainEvent, type RecordedEvent } from '@lore/platform/kernel';
import type { EventStore, ExpectedRevision } from '@lore/platform/event-store/port';
import { openSqliteEventStore, type SqliteEventStore } from '@lore/platform/event-store/sqlite';
import { handleCommand, type AggregateType, type Handled, type HandleOptions } from './aggregate-handler';
import { AggregateStateCache } from './aggregate-state-cache';

/**
 * A conversation holding its messages as events. `evolve` appends (it is not idempotent), so
 * an event folded twice or missed shows in the state.
 */
type Posted = DomainEvent<'conversation.MessagePosted', { text: string }>;
type Closed = DomainEvent<'conversation.Closed', Record<string, never>>;
type Reopened = DomainEvent<'conversation.Reopened', Record<string, never>>;
type ConversationEvent = Posted | Closed | Reopened;
type ConversationCommand = { kind: 'post'; text: string } | { kind: 'close' } | { kind: 'reopen' } | { kind: 'noop' };
interface ConversationState {
  readonly messages: readonly string[];
  readonly closed: boolean;
}

const conversationDecider: Decider<ConversationCommand, ConversationState, ConversationEvent> = {
  initialState: () => ({ messages: [], closed: false }),
  decide(command, state) {
    switch (command.kind) {
      case 'post':
        if (state.closed) throw conflict('conversation is closed');
        return [{ type: 'conversation.MessagePosted', data: { text: command.text } }];
      case 'close':
        // A conversation that does not exist (never written, or deleted) cannot be closed.
        if (state.messages.length === 0) throw notFound('Conversation');
        return state.closed ? [] : [{ type: 'conversation.Closed', data: {} }];
      case 'reopen':
        return state.closed ? [{ type: 'conversation.Reopened', data: {} }] : [];
      case 'noop':
        return [];
    }
  },
  evolve(state, event) {
    switch (event.type) {
      case 'conversation.MessagePosted':
        return { ...state, messages: [...state.messages, event.data.text] };
      case 'conversation.Closed':
        return { ...state, closed: true };
      case 'conversation.Reopened':
        return { ...state, closed: false };
    }
  },
};

function upcast(recorded: RecordedEvent): ConversationEvent {
  if (recorded.type === 'conversation.Closed') return { type: 'conversation.Closed', data: {} };
  if (recorded.type === 'conversation.Reopened') return { type: 'conversation.Reopened', data: {} };
  const data = recorded.data as { text?: unknown };
  if (recorded.type === 'conversation.MessagePosted' && typeof data.text === 'string') return { type: 'conversation.MessagePosted', data: { text: data.text } };
  throw new Error(`malformed conversation event ${recorded.type}`);
}

type Conversation = AggregateType<ConversationCommand, ConversationState, ConversationEvent>;
const uncached: Conversation = { name: 'conversation', decider: conversationDecider, upcast };
const cached = (cache = new AggregateStateCache<ConversationState>()): Conversation & { cache: AggregateStateCache<ConversationState> } => ({ ...uncached, cache });

const post = (text: string): ConversationCommand => ({ kind: 'post', text });
const posted = (text: string) => ({ id: randomUUID(), type: 'conversation.MessagePosted', data: { text } });

/** The real store, noting what each readStream was asked and returned, and each append's expected revision. */
function counting(store: EventStore) {
  const reads: { fromRevision: number | undefined; returned: number }[] = [];
  const appends: ExpectedRevision[] = [];
  const wrapped: EventStore = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'readStream') {
        return async (streamId: string, options?: Parameters<EventStore['readStream']>[1]) => {
          const events = await target.readStream(streamId, options);
          reads.push({ fromRevision: options?.fromRevision, returned: events.length });
          return events;
        };
      }
      if (property === 'append') {
        return (streamId: string, events: Parameters<EventStore['append']>[1], expected: ExpectedRevision) => {
          appends.push(expected);
          return target.append(streamId, events, expected);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const eventsRead = () => reads.reduce((sum, read) => sum + read.returned, 0);
  const reset = () => {
    reads.length = 0;
    appends.length = 0;
  };
  return { store: wrapped, reads, appends, eventsRead, reset };
}

/** The real store, where, once armed, another writer appends 'racer' right before the second append. */
function racingStore(store: EventStore) {
  let seen = -1;
  const racing: EventStore = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'append') {
        return async (streamId: string, toAppend: Parameters<EventStore['append']>[1], expected: ExpectedRevision) => {
          if (seen >= 0 && ++seen === 2) await target.append(streamId, [posted('racer')], 1);
          return target.append(streamId, toAppend, expected);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: racing, arm: () => (seen = 0), appendsSeen: () => seen };
}

describe('handleCommand with an AggregateStateCache (SQLite event store)', () => {
  let events: SqliteEventStore;
  const stream = 'conversation-1';

  beforeEach(() => {
    events = openSqliteEventStore({ path: ':memory:' });
  });

  afterEach(async () => {
    await events.close();
  });

  it('answers every command of a sequence exactly as without the cache, and stores the same events', async () => {
    const plain = openSqliteEventStore({ path: ':memory:' });
    try {
      const aggregate = cached();
      const sequence: [ConversationCommand, HandleOptions][] = [
        [post('hello'), { newStream: true }],
        [post('how are you'), {}],
        [{ kind: 'noop' }, {}],
        [post('fine'), {}],
        [{ kind: 'close' }, {}],
        [{ kind: 'close' }, {}],
        [post('too late'), {}],
      ];
      const outcome = async (store: EventStore, type: Conversation, [command, options]: [ConversationCommand, HandleOptions]) =>
        handleCommand(store, type, stream, command, options).then(
          (handled: Handled<ConversationState, ConversationEvent>) => ({ ok: handled }),
          (error: unknown) => ({ failed: error }),
        );
      const withCache: unknown[] = [];
      const without: unknown[] = [];
      for (const step of sequence) {
        withCache.push(await outcome(events, aggregate, step));
        without.push(await outcome(plain, uncached, step));
      }

      expect(withCache).toEqual(without);
      expect(withCache[4]).toMatchObject({ ok: { previous: { messages: ['hello', 'how are you', 'fine'], closed: false }, state: { closed: true } } });
      expect(withCache[6]).toMatchObject({ failed: { code: 'conflict' } });
      const strip = (stored: RecordedEvent[]) => stored.map((e) => [e.revision, e.type, e.data]);
      expect(strip(await events.readStream(stream))).toEqual(strip(await plain.readStream(stream)));
      expect(aggregate.cache.get(stream)).toMatchObject({ revision: 3, state: { messages: ['hello', 'how are you', 'fine'], closed: true } });
    } finally {
      await plain.close();
    }
  });

  it('decides on the cached state without reading; a stale one costs a failed append, then only the events after it are read', async () => {
    await events.append(stream, Array.from({ length: 50 }, (_, i) => posted(`m${i}`)), 'no_stream');
    const aggregate = cached();
    const { store, reads, appends, eventsRead, reset } = counting(events);

    const first = await handleCommand(store, aggregate, stream, post('m50'));
    expect(first.previous.messages).toHaveLength(50);
    expect(eventsRead()).toBe(51); // its 50 events in pages, and a one-event check that it was not deleted between them

    // Two more from another writer, then ours: only those two are read and folded.
    await events.append(stream, [posted('m51'), posted('m52')], 50);
    reset();
    const second = await handleCommand(store, aggregate, stream, post('m53'));

    // Decided on revision 50 unread, refused by the store, decided again on 52.
    expect(reads).toEqual([{ fromRevision: 51, returned: 2 }]);
    expect(appends).toEqual([50, 52]);
    expect(second.previous.messages).toEqual(Array.from({ length: 53 }, (_, i) => `m${i}`));
    expect(second.state.messages).toHaveLength(54);

    // Our own append is in the cache: the next command reads nothing.
    reset();
    await handleCommand(store, aggregate, stream, post('m54'));
    expect(reads).toEqual([]);
    expect(appends).toEqual([53]);
    expect(aggregate.cache.get(stream)?.state.messages).toEqual(Array.from({ length: 55 }, (_, i) => `m${i}`));
  });

  it('folds in what another process (a handler without the cache) appended before deciding', async () => {
    const aggregate = cached();
    await handleCommand(events, aggregate, stream, post('ours 1'));
    await handleCommand(events, aggregate, stream, post('ours 2'));

    await handleCommand(events, uncached, stream, post('theirs'));
    await handleCommand(events, uncached, stream, { kind: 'close' });

    // No retries: deciding on the stale cached state would conflict (or post to a closed conversation).
    const refused = handleCommand(events, aggregate, stream, post('ours 3'), { retries: 0 });
    await expect(refused).rejects.toMatchObject({ code: 'conflict', message: 'conversation is closed' });

    const closing = await handleCommand(events, aggregate, stream, { kind: 'close' }, { retries: 0 });
    // Its head is the other process's last event: the cached state's revision confirmed by a one-event read.
    const theirs = (await events.readStream(stream)).at(-1)?.position;
    expect(closing).toEqual({ previous: { messages: ['ours 1', 'ours 2', 'theirs'], closed: true }, state: closing.previous, events: [], position: null, head: theirs });
    expect(aggregate.cache.get(stream)).toMatchObject({ revision: 3, state: { messages: ['ours 1', 'ours 2', 'theirs'], closed: true } });
  });

  it('with no retries, a stale cache is no conflict: decided again at once on what another writer appended', async () => {
    const aggregate = cached();
    const { store, reads, appends, reset } = counting(events);
    await handleCommand(store, aggregate, stream, post('ours'));
    await handleCommand(events, uncached, stream, post('theirs'));
    reset();
    const sleep = jest.fn(async () => undefined);

    const handled = await handleCommand(store, aggregate, stream, post('ours again'), { retries: 0, backoff: { sleep } });

    expect(appends).toEqual([0, 1]);
    expect(reads).toEqual([{ fromRevision: 1, returned: 1 }]);
    expect(sleep).not.toHaveBeenCalled();
    expect(handled.state.messages).toEqual(['ours', 'theirs', 'ours again']);
  });

  it('is not refused on a stale cached state: a refusal is decided again on what another writer appended', async () => {
    const aggregate = cached();
    const { store, reads } = counting(events);
    await handleCommand(store, aggregate, stream, post('hello'));
    await handleCommand(store, aggregate, stream, { kind: 'close' });
    await handleCommand(events, uncached, stream, { kind: 'reopen' });

    // Cached, the conversation is closed and a post is refused; it was reopened since.
    const handled = await handleCommand(store, aggregate, stream, post('after reopening'), { retries: 0 });

    expect(handled.state).toEqual({ messages: ['hello', 'after reopening'], closed: false });
    expect(reads.at(-1)).toEqual({ fromRevision: 2, returned: 1 });
  });

  it('decides again at once only for the unread cached state: a writer between that read and the append is a conflict', async () => {
    const aggregate = cached();
    // Another writer gets in right before our second append.
    const racing = racingStore(events);

    await handleCommand(racing.store, aggregate, stream, post('ours'));
    await handleCommand(events, uncached, stream, post('theirs'));
    racing.arm();

    await expect(handleCommand(racing.store, aggregate, stream, post('ours again'), { retries: 0 })).rejects.toMatchObject({ code: 'conflict' });
    expect(racing.appendsSeen()).toBe(2);
    expect((await events.readStream(stream)).map((e) => (e.data as { text: string }).text)).toEqual(['ours', 'theirs', 'racer']);
  });

  it('does not count the re-decision from the unread state as a retry, nor wait before it', async () => {
    const aggregate = cached();
    const racing = racingStore(events);
    await handleCommand(racing.store, aggregate, stream, post('ours'));
    await handleCommand(events, uncached, stream, post('theirs'));
    racing.arm();
    const sleep = jest.fn(async () => undefined);

    // Stale (no wait, not counted), then a racer (the one retry allowed, after a wait), then through.
    const handled = await handleCommand(racing.store, aggregate, stream, post('ours again'), { retries: 1, backoff: { sleep } });

    expect(racing.appendsSeen()).toBe(3);
    expect(sleep).toHaveBeenCalledTimes(1);
    expect(handled.state.messages).toEqual(['ours', 'theirs', 'racer', 'ours again']);
  });

  it('takes turns with two concurrent commands on the same cached state: the second decides on what the first appended, and the cache ends at the latest revision', async () => {
    const aggregate = cached();
    await handleCommand(events, aggregate, stream, post('first'));
    const { store, appends } = counting(events);

    const [a, b] = await Promise.all([
      handleCommand(store, aggregate, stream, post('a'), { retries: 0 }),
      handleCommand(store, aggregate, stream, post('b'), { retries: 0 }),
    ]);

    // No race within one process: one append at revision 0, the next at 1, nothing read back.
    expect(appends).toEqual([0, 1]);
    const stored = await events.readStream(stream);
    const texts = stored.map((e) => (e.data as { text: string }).text);
    expect(texts.slice(1).sort()).toEqual(['a', 'b']);
    expect([a.state.messages, b.state.messages]).toContainEqual(texts);
    expect(aggregate.cache.get(stream)).toEqual({ revision: 2, state: { messages: texts, closed: false }, store });
  });

  describe('a deleted stream', () => {
    it('answers not found to a command that appends, and drops the entry', async () => {
      const aggregate = cached();
      await handleCommand(events, aggregate, stream, post('hello'));
      expect(aggregate.cache.get(stream)).toBeDefined();

      await events.deleteStream(stream);
      const failure = handleCommand(events, aggregate, stream, post('anyone?'));

      await expect(failure).rejects.toMatchObject({ code: 'not_found', message: expect.stringContaining('Conversation') });
      expect(aggregate.cache.get(stream)).toBeUndefined();
    });

    it('is not answered from the cache by a command that appends nothing: it sees the stream as gone, as without a cache', async () => {
      const aggregate = cached();
      await handleCommand(events, aggregate, stream, post('hello'));
      await handleCommand(events, aggregate, stream, { kind: 'close' });

      await events.deleteStream(stream);

      // Cached, the conversation is closed and closing again appends nothing; it is gone, though.
      await expect(handleCommand(events, uncached, stream, { kind: 'close' })).rejects.toMatchObject({ code: 'not_found' });
      await expect(handleCommand(events, aggregate, stream, { kind: 'close' })).rejects.toMatchObject({ code: 'not_found' });
      expect(aggregate.cache.get(stream)).toBeUndefined();
      expect(await handleCommand(events, aggregate, stream, { kind: 'noop' })).toEqual(await handleCommand(events, uncached, stream, { kind: 'noop' }));
    });

    it('is not refused on the cached state: the refusal is the one the empty stream gets', async () => {
      const aggregate = cached();
      await handleCommand(events, aggregate, stream, post('hello'));
      await handleCommand(events, aggregate, stream, { kind: 'close' });

      await events.deleteStream(stream);

      // Cached, posting to a closed conversation is refused as a conflict; it is gone, though.
      const failure = handleCommand(events, aggregate, stream, post('anyone?'));
      await expect(failure).rejects.toMatchObject({ code: 'not_found' });
      await expect(failure).rejects.not.toMatchObject({ message: 'conversation is closed' });
      expect(aggregate.cache.get(stream)).toBeUndefined();
    });
  });

  it('evicts the least recently used stream beyond maxEntries; an evicted stream is read whole again', async () => {
    const aggregate = cached(new AggregateStateCache({ maxEntries: 2 }));
    const { store, reads, reset } = counting(events);
    await handleCommand(store, aggregate, 'conversation-a', post('a'));
    await handleCommand(store, aggregate, 'conversation-b', post('b'));
    await handleCommand(store, aggregate, 'conversation-a', post('a2')); // a is now the most recently used
    await handleCommand(store, aggregate, 'conversation-c', post('c'));

    expect(aggregate.cache.size).toBe(2);
    expect(aggregate.cache.get('conversation-b')).toBeUndefined();
    expect(aggregate.cache.get('conversation-a')?.revision).toBe(1);
    expect(aggregate.cache.get('conversation-c')?.revision).toBe(0);

    reset();
    const handled = await handleCommand(store, aggregate, 'conversation-b', post('b2'));
    expect(reads).toEqual([{ fromRevision: 0, returned: 1 }]);
    expect(handled.state.messages).toEqual(['b', 'b2']);
    expect(aggregate.cache.get('conversation-b')?.revision).toBe(1);
    expect(aggregate.cache.size).toBe(2);
  });

  it('does not read for a newStream command, and caches the state it appended', async () => {
    const aggregate = cached();
    const { store, reads, reset } = counting(events);

    const created = await handleCommand(store, aggregate, stream, post('hello'), { newStream: true });

    expect(reads).toEqual([]);
    expect(aggregate.cache.get(stream)).toEqual({ revision: 0, state: created.state, store });
    reset();
    const next = await handleCommand(store, aggregate, stream, post('again'));
    expect(reads).toEqual([]);
    expect(next.previous).toBe(created.state);
  });

  it('does not consult the cache for a newStream command: an existing stream still fails loudly', async () => {
    const aggregate = cached();
    await handleCommand(events, aggregate, stream, post('hello'));
    await expect(handleCommand(events, aggregate, stream, post('again'), { newStream: true })).rejects.toMatchObject({ code: 'conflict' });
    expect(await events.readStream(stream)).toHaveLength(1);
  });

  it('does not serve one store\'s state for the same stream id in another store (one module-level cache, a store per test)', async () => {
    const aggregate = cached();
    await handleCommand(events, aggregate, stream, post('in the first store'));
    await handleCommand(events, aggregate, stream, post('still the first'));
    const other = openSqliteEventStore({ path: ':memory:' });
    try {
      const handled = await handleCommand(other, aggregate, stream, post('in the second store'), { retries: 0 });
      expect(handled.state.messages).toEqual(['in the second store']);
      expect(aggregate.cache.get(stream)).toMatchObject({ revision: 0, store: other });
    } finally {
      await other.close();
    }
  });
});

describe('AggregateStateCache', () => {
  const store = {} as EventStore;
  const entry = (revision: number, store_ = store) => ({ state: { revision }, revision, store: store_ });

  it('keeps a newer entry when an older one is set after it (a slower command finishing last)', () => {
    const cache = new AggregateStateCache<{ revision: number }>();
    expect(cache.set('s', entry(5))).toBe(true);
    expect(cache.set('s', entry(3))).toBe(false);
    expect(cache.set('s', entry(5))).toBe(false);
    expect(cache.get('s')?.revision).toBe(5);
    expect(cache.set('s', entry(6))).toBe(true);
    expect(cache.get('s')?.revision).toBe(6);
  });

  it('replaces an entry from another store whatever its revision', () => {
    const cache = new AggregateStateCache<{ revision: number }>();
    const other = {} as EventStore;
    cache.set('s', entry(5));
    expect(cache.set('s', entry(0, other))).toBe(true);
    expect(cache.get('s')).toEqual(entry(0, other));
  });

  it('evicts the least recently used entry (get counts as a use) and deletes on request', () => {
    const cache = new AggregateStateCache<{ revision: number }>({ maxEntries: 3 });
    for (const id of ['a', 'b', 'c']) cache.set(id, entry(0));
    cache.get('a');
    cache.set('d', entry(0));
    expect(['a', 'b', 'c', 'd'].filter((id) => cache.get(id) !== undefined)).toEqual(['a', 'c', 'd']);
    expect(cache.delete('c')).toBe(true);
    expect(cache.delete('c')).toBe(false);
    expect(cache.size).toBe(2);
  });

  it('defaults to 1,000 entries and refuses a size that is not a positive integer', () => {
    expect(new AggregateStateCache().maxEntries).toBe(1_000);
    expect(() => new AggregateStateCache({ maxEntries: 0 })).toThrow(RangeError);
    expect(() => new AggregateStateCache({ maxEntries: 1.5 })).toThrow(RangeError);
  });
});
