import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, positionToString, type Position, type RecordedEvent } from '@lore/platform/kernel';
import type { Doc, DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { EventStore } from '@lore/platform/event-store/port';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { eventually } from '@lore/platform/event-store/contract';
import type { Processor, Projection, Reactor } from './projection';
import { DEFAULT_PARKING, PASS_OVER_CHECKPOINT_EVERY, ProjectionRunner, type ParkingOptions } from './projection-runner';

interface CounterDoc extends Doc {
  readonly count: number;
  readonly lastRevision: number;
}

const NAME = 'test-counters-v1';
const COLLECTION = 'test_counters';
const WAIT_MS = 10_000;

/**
 * Counts events per `counter-` stream. Counting (rather than setting) makes a replayed
 * event visible as a wrong count. `applied` lists every event id handed to the projection.
 */
function counterProjection(options: { gate?: () => Promise<void> } = {}): Projection & { applied: string[] } {
  const applied: string[] = [];
  return {
    name: NAME,
    streamPrefixes: ['counter-'],
    collections: [COLLECTION],
    applied,
    async handle(event: RecordedEvent, context) {
      applied.push(event.id);
      if (options.gate) await options.gate();
      if (event.type === 'test.Outage') throw outage();
      const current = await context.get<CounterDoc>(COLLECTION, event.streamId);
      context.upsert(COLLECTION, { id: event.streamId, count: (current?.count ?? 0) + 1, lastRevision: event.revision });
    },
  };
}

/** What a store that is briefly away throws: transient, so the runner retries rather than parks. */
/** The counter projection, failing with an outage while `broken()` says so. */
function failingWhile(broken: () => boolean): Projection {
  const projection = counterProjection();
  return {
    ...projection,
    async handle(event, context) {
      if (broken()) throw outage();
      await projection.handle(event, context);
    },
  };
}

const outage = (): Error => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6333 (cannot project this event)'), { code: 'ECONNREFUSED' });

async function append(store: EventStore, streamId: string, count: number, type = 'test.Counted'): Promise<Position> {
  const events = Array.from({ length: count }, () => ({ id: randomUUID(), type, data: {} }));
  return (await store.append(streamId, events, 'any')).position;
}

async function counters(documents: DocumentStore): Promise<Record<string, number>> {
  const page = await documents.collection<CounterDoc>(COLLECTION).find({ sort: [['id', 'asc']] });
  return Object.fromEntries(page.items.map((d) => [d.id, d.count]));
}

/** A promise the test opens when it chooses. */
function gate(): { wait: () => Promise<void>; open: () => void } {
  let open: () => void = () => undefined;
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait: () => opened, open };
}

describe('ProjectionRunner (SQLite event store + SQLite document store)', () => {
  let events: EventStore;
  let documents: DocumentStore;
  const runners: ProjectionRunner[] = [];
  const cleanups: Array<() => void> = [];
  const runner = (projection: Processor, onError?: (error: unknown) => void, parking?: Partial<ParkingOptions>): ProjectionRunner => {
    const created = new ProjectionRunner(projection, events, documents, onError, null, { ...DEFAULT_PARKING, ...parking });
    runners.push(created);
    return created;
  };

  beforeEach(() => {
    events = openSqliteEventStore({ path: ':memory:' });
    documents = openSqliteDocumentStore({ path: ':memory:' });
  });

  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) cleanup();
    await Promise.all(runners.splice(0).map((r) => r.stop()));
    await events.close();
    await documents.close();
  });

  it('builds the read model from events already in the log and from live ones', async () => {
    await append(events, 'counter-a', 3);
    await append(events, 'counter-b', 1);
    const projection = counterProjection();
    const running = runner(projection);
    await running.start();
    await running.waitFor(await events.headPosition(), WAIT_MS);
    expect(await counters(documents)).toEqual({ 'counter-a': 3, 'counter-b': 1 });

    const live = await append(events, 'counter-b', 2);
    await running.waitFor(live, WAIT_MS);
    expect(await counters(documents)).toEqual({ 'counter-a': 3, 'counter-b': 3 });
    expect(await documents.collection<CounterDoc>(COLLECTION).get('counter-b')).toMatchObject({ lastRevision: 2 });
    expect(running.state).toBe('live');
  });

  it('keeps its checkpoint with the read model, at the last applied position', async () => {
    const running = runner(counterProjection());
    await running.start();
    const position = await append(events, 'counter-a', 2);
    await running.waitFor(position, WAIT_MS);
    expect(running.checkpoint).toEqual(position);
    expect(await documents.getCheckpoint(NAME)).toBe(positionToString(position));
  });

  it('ignores events of other stream prefixes', async () => {
    await append(events, 'memory-x', 2);
    await append(events, 'countermemory-y', 1);
    const mine = await append(events, 'counter-a', 1);
    await append(events, 'apikey-z', 1);
    const projection = counterProjection();
    const running = runner(projection);
    await running.start();
    await running.waitFor(mine, WAIT_MS);
    expect(await counters(documents)).toEqual({ 'counter-a': 1 });
    expect(projection.applied).toHaveLength(1);
  });

  it("passes over a reactor's batches of events it does not act on without a commit, and still moves its checkpoint now and then", async () => {
    const reacted: string[] = [];
    const reactor: Reactor = {
      name: 'test-reactor-v1',
      streamPrefixes: ['counter-'],
      actsOn: (event) => event.type === 'test.Wanted',
      react: async (batch) => void reacted.push(...batch.map((event) => event.type)),
    };
    const running = runner(reactor);
    await running.start();
    const passed = await append(events, 'counter-a', 3);
    await running.waitFor(passed, WAIT_MS);
    expect(reacted).toEqual([]);
    expect(await documents.getCheckpoint('test-reactor-v1')).toBeNull();

    const wanted = await append(events, 'counter-a', 1, 'test.Wanted');
    await running.waitFor(wanted, WAIT_MS);
    expect(reacted).toContain('test.Wanted');
    expect(await documents.getCheckpoint('test-reactor-v1')).toBe(positionToString(wanted));

    // A long run passed over is checkpointed every so often: a restart reads at most that many again.
    const many = await append(events, 'counter-b', PASS_OVER_CHECKPOINT_EVERY);
    await running.waitFor(many, WAIT_MS);
    expect(reacted).toEqual(['test.Wanted']);
    expect(await documents.getCheckpoint('test-reactor-v1')).not.toBe(positionToString(wanted));
  });

  it('goes live once caught up when the log ends with events of other streams', async () => {
    // Own events to catch up on, then the head of the log in a stream this projection ignores.
    const mine = await append(events, 'counter-a', 2);
    await append(events, 'memory-x', 1);
    const running = runner(counterProjection());
    await running.start();
    await running.waitFor(mine, WAIT_MS);
    await eventually(() => running.state === 'live', 2_000);
  });

  it('goes live when everything after its checkpoint belongs to other streams', async () => {
    await append(events, 'memory-x', 3);
    const running = runner(counterProjection());
    await running.start();
    await eventually(() => running.state === 'live', WAIT_MS);
  });

  describe('restart', () => {
    it('resumes after its checkpoint: no event is applied twice', async () => {
      const first = counterProjection();
      const one = runner(first);
      await one.start();
      await one.waitFor(await append(events, 'counter-a', 3), WAIT_MS);
      await one.stop();

      await append(events, 'counter-a', 2);
      const second = counterProjection();
      const two = runner(second);
      await two.start();
      await two.waitFor(await events.headPosition(), WAIT_MS);

      expect(await counters(documents)).toEqual({ 'counter-a': 5 });
      expect(second.applied).toHaveLength(2);
      expect(new Set([...first.applied, ...second.applied]).size).toBe(5);
    });

    it('resumes from files after both stores are closed and reopened', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'lore-projection-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      const open = (): { events: EventStore; documents: DocumentStore } => ({
        events: openSqliteEventStore({ path: join(dir, 'events.db') }),
        documents: openSqliteDocumentStore({ path: join(dir, 'read.db') }),
      });

      let stores = open();
      let running = new ProjectionRunner(counterProjection(), stores.events, stores.documents);
      await running.start();
      await running.waitFor(await append(stores.events, 'counter-a', 4), WAIT_MS);
      await running.stop();
      await stores.events.close();
      await stores.documents.close();

      stores = open();
      const projection = counterProjection();
      running = new ProjectionRunner(projection, stores.events, stores.documents);
      try {
        await running.start();
        await running.waitFor(await append(stores.events, 'counter-a', 1), WAIT_MS);
        expect(await counters(stores.documents)).toEqual({ 'counter-a': 5 });
        expect(projection.applied).toHaveLength(1);
      } finally {
        await running.stop();
        await stores.events.close();
        await stores.documents.close();
      }
    });
  });

  describe('waitFor', () => {
    it('resolves at once for a position already applied', async () => {
      const running = runner(counterProjection());
      await running.start();
      const position = await append(events, 'counter-a', 1);
      await running.waitFor(position, WAIT_MS);
      await expect(running.waitFor(position, 1)).resolves.toBeUndefined();
    });

    it('resolves only after the position is applied', async () => {
      const held = gate();
      const running = runner(counterProjection({ gate: held.wait }));
      cleanups.push(held.open);
      await running.start();
      const position = await append(events, 'counter-a', 1);

      let resolved = false;
      const waiting = running.waitFor(position, WAIT_MS).then(() => {
        resolved = true;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(resolved).toBe(false);
      expect(await counters(documents)).toEqual({});

      held.open();
      await waiting;
      // Resolution implies the read model already holds the write.
      expect(await counters(documents)).toEqual({ 'counter-a': 1 });
    });

    it("rejects with 'unavailable' after the timeout when the projection is stuck", async () => {
      const held = gate();
      const projection = counterProjection({ gate: held.wait });
      const running = runner(projection);
      cleanups.push(held.open);
      await running.start();
      const position = await append(events, 'counter-a', 1);
      await eventually(() => projection.applied.length === 1, WAIT_MS);

      const failure = running.waitFor(position, 50);
      await expect(failure).rejects.toBeInstanceOf(AppError);
      await expect(failure).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining(NAME) });

      // Once unstuck, the same position becomes readable.
      held.open();
      await running.waitFor(position, WAIT_MS);
      expect(await counters(documents)).toEqual({ 'counter-a': 1 });
    });
  });

  describe('rebuild', () => {
    it('empties the collection and rebuilds it to the same content', async () => {
      await append(events, 'counter-a', 3);
      const last = await append(events, 'counter-b', 2);
      await append(events, 'memory-x', 1);
      const running = runner(counterProjection());
      await running.start();
      await running.waitFor(last, WAIT_MS);
      const before = await documents.collection(COLLECTION).find({ sort: [['id', 'asc']] });
      // A document the projection would never write: rebuild must drop it.
      await documents.collection(COLLECTION).upsert({ id: 'stray', count: 99, lastRevision: 0 });

      await running.rebuild();
      await running.waitFor(last, WAIT_MS);

      const after = await documents.collection(COLLECTION).find({ sort: [['id', 'asc']] });
      expect(after.items).toEqual(before.items);
      expect(await counters(documents)).toEqual({ 'counter-a': 3, 'counter-b': 2 });
    });

    it('continues live after a rebuild', async () => {
      const running = runner(counterProjection());
      await running.start();
      await running.waitFor(await append(events, 'counter-a', 1), WAIT_MS);
      await running.rebuild();
      await running.waitFor(await append(events, 'counter-a', 1), WAIT_MS);
      expect(await counters(documents)).toEqual({ 'counter-a': 2 });
    });
  });

  describe('a transient failure (a store briefly away)', () => {
    it("puts the runner in state 'retrying', reports the error, keeps the last good checkpoint, and answers waits at once when it keeps failing", async () => {
      const errors: unknown[] = [];
      const running = runner(counterProjection(), (error) => errors.push(error));
      await running.start();
      const good = await append(events, 'counter-a', 2);
      await running.waitFor(good, WAIT_MS);

      const poisoned = await append(events, 'counter-a', 1, 'test.Outage');
      await eventually(() => running.state === 'retrying', WAIT_MS);
      expect(String(errors[0])).toContain('cannot project this event');
      expect(await documents.getCheckpoint(NAME)).toBe(positionToString(good));
      expect(await counters(documents)).toEqual({ 'counter-a': 2 });
      // An outage that lasts fails every retry; after a few, read-your-writes answers at once.
      await eventually(() => errors.length >= 3, WAIT_MS);
      const failure = running.waitFor(poisoned, WAIT_MS);
      await expect(failure).rejects.toMatchObject({ code: 'unavailable' });
      await expect(failure).rejects.not.toMatchObject({ message: expect.stringContaining('cannot project') });
    });

    it('applies nothing of a batch in which one event fails, and parks nothing', async () => {
      await append(events, 'counter-a', 2);
      await append(events, 'counter-a', 1, 'test.Outage');
      const running = runner(counterProjection());
      await running.start();
      await eventually(() => running.state === 'retrying', WAIT_MS);
      expect(await counters(documents)).toEqual({});
      expect(await documents.getCheckpoint(NAME)).toBeNull();
      expect(running.parked.size).toBe(0);
    });

    it('parks an event that fails "transiently" every time once other events show the store answers (a provider timing out on one text), and goes on', async () => {
      const errors: unknown[] = [];
      const projection = counterProjection();
      const running = runner(projection, (error) => errors.push(error), { isolateAfterRestarts: 2 });
      await running.start();
      await append(events, 'counter-a', 1);
      const poison = await append(events, 'counter-p', 1, 'test.Outage');
      await append(events, 'counter-p', 1);
      await append(events, 'counter-b', 1);
      const last = await append(events, 'counter-a', 1);

      await running.waitFor(last, WAIT_MS);
      await eventually(() => running.state === 'live', WAIT_MS);
      expect(await counters(documents)).toEqual({ 'counter-a': 2, 'counter-b': 1 });
      const [failed, behind] = running.parked.all();
      expect(failed).toMatchObject({ streamId: 'counter-p', position: positionToString(poison), reason: 'failed', error: expect.stringContaining('ECONNREFUSED') });
      // The restarts at its checkpoint, then the try that isolated it.
      expect(failed?.attempts).toBeGreaterThanOrEqual(3);
      expect(behind).toMatchObject({ streamId: 'counter-p', reason: 'waiting-behind', blockedBy: failed?.eventId });
      expect(await documents.getCheckpoint(NAME)).toBe(positionToString(last));
      // Later events go on live.
      await running.waitFor(await append(events, 'counter-b', 1), WAIT_MS);
      expect((await counters(documents))['counter-b']).toBe(2);
    });

    it('parks no suspect that no other event vouches for (alone after the checkpoint); the next event of another stream decides', async () => {
      const errors: unknown[] = [];
      const running = runner(counterProjection(), (error) => errors.push(error), { isolateAfterRestarts: 1 });
      await running.start();
      await running.waitFor(await append(events, 'counter-a', 1), WAIT_MS);
      await append(events, 'counter-p', 1, 'test.Outage');
      // Several passes event by event, each with nothing but the suspect to go on.
      await eventually(() => errors.length >= 4, WAIT_MS);
      expect(running.parked.size).toBe(0);
      expect(running.state).toBe('retrying');

      await append(events, 'counter-b', 1);
      await eventually(() => running.parked.size === 1 && running.state !== 'retrying', WAIT_MS);
      expect(running.parked.all()).toMatchObject([{ streamId: 'counter-p', reason: 'failed' }]);
      await running.waitFor(await events.headPosition(), WAIT_MS);
      expect(await counters(documents)).toEqual({ 'counter-a': 1, 'counter-b': 1 });
    });

    it('parks nothing during an outage that fails every event, however long it lasts, and applies everything once it ends', async () => {
      let broken = true;
      const errors: unknown[] = [];
      const flaky = failingWhile(() => broken);
      const running = runner(flaky, (error) => errors.push(error), { isolateAfterRestarts: 2 });
      await running.start();
      await append(events, 'counter-a', 2);
      await append(events, 'counter-b', 1);
      const last = await append(events, 'counter-c', 1);
      // Well past the restarts after which the runner tries events one by one.
      await eventually(() => errors.length >= 6, WAIT_MS);
      expect(running.parked.size).toBe(0);
      expect(running.state).toBe('retrying');
      broken = false;
      // Waits answer at once while it keeps failing: wait for the restart that succeeds.
      await eventually(() => running.state !== 'retrying', WAIT_MS);
      await running.waitFor(last, WAIT_MS);
      expect(await counters(documents)).toEqual({ 'counter-a': 2, 'counter-b': 1, 'counter-c': 1 });
      expect(running.parked.size).toBe(0);
    });

    it('recovers on its own once the cause is gone, from its checkpoint, applying each event once', async () => {
      let broken = true;
      const errors: unknown[] = [];
      const flaky = failingWhile(() => broken);
      const running = runner(flaky, (error) => errors.push(error));
      await running.start();
      const position = await append(events, 'counter-a', 3);
      await eventually(() => errors.length >= 1, WAIT_MS);
      expect(running.state).toBe('retrying');
      broken = false;
      await running.waitFor(position, WAIT_MS);
      await eventually(() => running.state === 'live', WAIT_MS);
      expect(await counters(documents)).toEqual({ 'counter-a': 3 });
    });
  });
});
