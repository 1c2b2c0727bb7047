import type { RecordedEvent } from '@lore/platform/kernel';
import type { EventStore, EventSubscription } from '@lore/platform/event-store/port';
import { eventsOf, eventually, sleep, uniqueName } from './contract-helpers';

/** Collects what a subscription delivers, and lets a test close it whatever the outcome. */
class Recorder {
  readonly events: RecordedEvent[] = [];
  readonly batches: number[] = [];
  readonly errors: unknown[] = [];
  subscription: EventSubscription | undefined;

  ids(): string[] {
    return this.events.map((e) => e.id);
  }
}

/** Subscription behaviour; part of describeEventStoreContract, run with its store. */
export function describeSubscriptionContract(getStore: () => EventStore): void {
  describe('subscribeToAll', () => {
    const open: Recorder[] = [];
    const recorder = (): Recorder => {
      const r = new Recorder();
      open.push(r);
      return r;
    };

    afterEach(async () => {
      await Promise.all(open.splice(0).map((r) => r.subscription?.close() ?? Promise.resolve()));
    });

    it('catches up on existing events, then delivers new ones live, in order and once', async () => {
      const store = getStore();
      const prefix = uniqueName('ct') + '-';
      const from = await store.headPosition();
      const early = [...eventsOf(3), ...eventsOf(2)];
      await store.append(`${prefix}a`, early.slice(0, 3), 'no_stream');
      await store.append(`${prefix}b`, early.slice(3), 'no_stream');

      const r = recorder();
      r.subscription = store.subscribeToAll(
        { after: from, streamPrefixes: [prefix] },
        async (events) => {
          r.events.push(...events);
          r.batches.push(events.length);
        },
        (error) => r.errors.push(error),
      );
      await eventually(() => r.events.length >= 5);

      const late = eventsOf(4);
      await store.append(`${prefix}a`, late.slice(0, 2), 2);
      await store.append(`${prefix}c`, late.slice(2), 'no_stream');
      await eventually(() => r.events.length >= 9);
      await sleep(100);

      expect(r.ids()).toEqual([...early, ...late].map((e) => e.id));
      expect(r.errors).toEqual([]);
      expect(r.batches.every((n) => n > 0)).toBe(true);
    });

    it('starts strictly after the checkpoint it is given', async () => {
      const store = getStore();
      const prefix = uniqueName('ct') + '-';
      const from = await store.headPosition();
      const events = eventsOf(4);
      await store.append(`${prefix}a`, events, 'no_stream');
      const [, second] = await store.readAll({ after: from, streamPrefixes: [prefix] });
      if (second === undefined) throw new Error('expected events to be readable');

      const r = recorder();
      r.subscription = store.subscribeToAll({ after: second.position, streamPrefixes: [prefix] }, async (batch) => {
        r.events.push(...batch);
      });
      await eventually(() => r.events.length >= 2);
      const more = eventsOf(1);
      await store.append(`${prefix}a`, more, 3);
      await eventually(() => r.events.length >= 3);
      await sleep(100);
      expect(r.ids()).toEqual([events[2]?.id, events[3]?.id, more[0]?.id]);
    });

    it('waits for the handler before the next batch, keeping order under back-pressure', async () => {
      const store = getStore();
      const prefix = uniqueName('ct') + '-';
      const from = await store.headPosition();
      const r = recorder();
      let inFlight = 0;
      let maxInFlight = 0;
      r.subscription = store.subscribeToAll(
        { after: from, streamPrefixes: [prefix] },
        async (events) => {
          inFlight++;
          maxInFlight = Math.max(maxInFlight, inFlight);
          await sleep(15);
          r.events.push(...events);
          inFlight--;
        },
        (error) => r.errors.push(error),
      );

      const written = [];
      for (let i = 0; i < 6; i++) {
        const batch = eventsOf(3);
        written.push(...batch);
        await store.append(`${prefix}${i % 2}`, batch, 'any');
        await sleep(5);
      }
      await eventually(() => r.events.length >= written.length, 20_000);
      await sleep(100);

      expect(maxInFlight).toBe(1);
      expect(r.ids()).toEqual(written.map((e) => e.id));
      expect(r.errors).toEqual([]);
    });

    it('stops and reports through onError when the handler fails', async () => {
      const store = getStore();
      const prefix = uniqueName('ct') + '-';
      const from = await store.headPosition();
      await store.append(`${prefix}a`, eventsOf(1), 'no_stream');
      const r = recorder();
      let calls = 0;
      const failure = new Error('projection broke');
      r.subscription = store.subscribeToAll(
        { after: from, streamPrefixes: [prefix] },
        async () => {
          calls++;
          throw failure;
        },
        (error) => r.errors.push(error),
      );
      await eventually(() => r.errors.length === 1);
      await store.append(`${prefix}a`, eventsOf(1), 0);
      await sleep(300);
      expect(r.errors).toEqual([failure]);
      expect(calls).toBe(1);
    });

    it('delivers nothing more once closed', async () => {
      const store = getStore();
      const prefix = uniqueName('ct') + '-';
      const from = await store.headPosition();
      const r = recorder();
      r.subscription = store.subscribeToAll({ after: from, streamPrefixes: [prefix] }, async (events) => {
        r.events.push(...events);
      });
      await store.append(`${prefix}a`, eventsOf(1), 'no_stream');
      await eventually(() => r.events.length === 1);
      await r.subscription.close();
      await store.append(`${prefix}a`, eventsOf(1), 0);
      await sleep(300);
      expect(r.events).toHaveLength(1);
    });

    it('does not deliver events of a stream deleted before catch-up reaches them', async () => {
      const store = getStore();
      const prefix = uniqueName('ct') + '-';
      const from = await store.headPosition();
      const kept = eventsOf(1);
      await store.append(`${prefix}doomed`, eventsOf(2), 'no_stream');
      await store.append(`${prefix}kept`, kept, 'no_stream');
      await store.deleteStream(`${prefix}doomed`);

      const r = recorder();
      r.subscription = store.subscribeToAll({ after: from, streamPrefixes: [prefix] }, async (events) => {
        r.events.push(...events);
      });
      await eventually(() => r.events.length >= 1);
      await sleep(200);
      expect(r.ids()).toEqual(kept.map((e) => e.id));
    });
  });
}
