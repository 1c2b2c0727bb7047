import { randomUUID } from 'node:crypto';
import { START, comparePositions } from '@lore/platform/kernel';
import type { Position, RecordedEvent } from '@lore/platform/kernel';
import { StreamDeletedError, WrongExpectedRevisionError } from '@lore/platform/event-store/port';
import type { EventStore, EventToAppend } from '@lore/platform/event-store/port';
import { describeSubscriptionContract } from './subscription.contract';
import { describeHashChainContract } from './hash-chain.contract';
import { eventsOf, uniqueName } from './contract-helpers';

export interface EventStoreUnderTest {
  readonly store: EventStore;
  cleanup(): Promise<void>;
}

export type EventStoreFactory = () => Promise<EventStoreUnderTest>;

/**
 * The behaviour every EventStore adapter must show (ARCHITECTURE §3.4). Stream ids carry a
 * random suffix and log reads are bounded by a head taken at the start of each test, so the
 * suite also runs against a shared server that holds other data.
 */
export function describeEventStoreContract(name: string, factory: EventStoreFactory): void {
  describe(`EventStore contract: ${name}`, () => {
    let subject: EventStoreUnderTest;
    let store: EventStore;

    beforeEach(async () => {
      subject = await factory();
      store = subject.store;
    });

    afterEach(async () => {
      await subject.cleanup();
    });

    describe('append and readStream', () => {
      it('round-trips data and metadata with revisions 0..n and an ISO recording time', async () => {
        const stream = uniqueName('order-');
        const events: EventToAppend[] = [
          { id: randomUUID(), type: 'test.Created', data: { name: 'é ünïcode ✓', nested: { list: [1, 2, 3], flag: true, none: null } } },
          { id: randomUUID(), type: 'test.Renamed', data: { name: 'second' }, metadata: { correlationId: 'c-1', actor: 'user-1' } },
          { id: randomUUID(), type: 'test.Tagged', data: { tags: ['a', 'b'] } },
        ];
        const before = Date.now();
        const result = await store.append(stream, events, 'no_stream');
        const read = await store.readStream(stream);

        expect(read.map((e) => e.revision)).toEqual([0, 1, 2]);
        expect(read.map((e) => e.id)).toEqual(events.map((e) => e.id));
        expect(read.map((e) => e.type)).toEqual(events.map((e) => e.type));
        expect(read.map((e) => e.data)).toEqual(events.map((e) => e.data));
        expect(read.every((e) => e.streamId === stream)).toBe(true);
        // Besides what the writer gave, metadata carries only the hash chain's two fields.
        expect(withoutChain(read[1]?.metadata)).toEqual({ correlationId: 'c-1', actor: 'user-1' });
        expect(withoutChain(read[0]?.metadata)).toEqual({});
        for (const e of read) {
          expect(e.recordedAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
          // Generous bounds: a server's clock may differ a little from the test machine's.
          expect(Date.parse(e.recordedAt)).toBeGreaterThan(before - 60_000);
          expect(Date.parse(e.recordedAt)).toBeLessThan(Date.now() + 60_000);
        }
        expect(result.revision).toBe(2);
        expect(read[2]?.position).toEqual(result.position);
      });

      it('returns an empty array for a stream that does not exist', async () => {
        expect(await store.readStream(uniqueName('missing-'))).toEqual([]);
      });

      it('reads from a revision and at most maxCount events', async () => {
        const stream = uniqueName('order-');
        await store.append(stream, eventsOf(5), 'no_stream');
        const read = await store.readStream(stream, { fromRevision: 1, maxCount: 3 });
        expect(read.map((e) => e.revision)).toEqual([1, 2, 3]);
      });

      it('keeps appending revisions across appends and reports the last one', async () => {
        const stream = uniqueName('order-');
        const first = await store.append(stream, eventsOf(2), 'no_stream');
        const second = await store.append(stream, eventsOf(3), 1);
        expect(first.revision).toBe(1);
        expect(second.revision).toBe(4);
        expect(comparePositions(second.position, first.position)).toBe(1);
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2, 3, 4]);
      });

      it('stores a retried append with the same event ids only once', async () => {
        const stream = uniqueName('order-');
        const events = eventsOf(2);
        const first = await store.append(stream, events, 'no_stream');
        const retry = await store.append(stream, events, 'no_stream');
        expect(retry.revision).toBe(first.revision);
        expect(await store.readStream(stream)).toHaveLength(2);
      });
    });

    describe('expected revision', () => {
      it('any: appends whatever the stream state', async () => {
        const stream = uniqueName('order-');
        await store.append(stream, eventsOf(1), 'any');
        const result = await store.append(stream, eventsOf(1), 'any');
        expect(result.revision).toBe(1);
      });

      it('no_stream: fails with the actual revision when the stream exists', async () => {
        const stream = uniqueName('order-');
        await store.append(stream, eventsOf(2), 'no_stream');
        const error = await store.append(stream, eventsOf(1), 'no_stream').catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).toBe(1);
        expect((error as WrongExpectedRevisionError).streamId).toBe(stream);
        expect((error as WrongExpectedRevisionError).code).toBe('conflict');
        expect(await store.readStream(stream)).toHaveLength(2);
      });

      it('exact: appends at the current revision and fails with the actual one otherwise', async () => {
        const stream = uniqueName('order-');
        await store.append(stream, eventsOf(3), 'no_stream');
        const stale = await store.append(stream, eventsOf(1), 1).catch((e: unknown) => e);
        expect(stale).toBeInstanceOf(WrongExpectedRevisionError);
        expect((stale as WrongExpectedRevisionError).actual).toBe(2);
        const ahead = await store.append(stream, eventsOf(1), 7).catch((e: unknown) => e);
        expect((ahead as WrongExpectedRevisionError).actual).toBe(2);
        expect((await store.append(stream, eventsOf(1), 2)).revision).toBe(3);
      });

      it('exact on a missing stream fails with actual no_stream', async () => {
        const error = await store.append(uniqueName('order-'), eventsOf(1), 0).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(WrongExpectedRevisionError);
        expect((error as WrongExpectedRevisionError).actual).toBe('no_stream');
      });

      it('lets exactly one of concurrent appends with the same expected revision win', async () => {
        const stream = uniqueName('order-');
        await store.append(stream, eventsOf(1), 'no_stream');
        const outcomes = await Promise.allSettled(Array.from({ length: 10 }, () => store.append(stream, eventsOf(2), 0)));
        const won = outcomes.filter((o) => o.status === 'fulfilled');
        const lost = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
        expect(won).toHaveLength(1);
        expect(lost).toHaveLength(9);
        for (const o of lost) {
          expect(o.reason).toBeInstanceOf(WrongExpectedRevisionError);
          expect((o.reason as WrongExpectedRevisionError).actual).toBe(2);
        }
        expect((await store.readStream(stream)).map((e) => e.revision)).toEqual([0, 1, 2]);
      });

      it('lets exactly one of concurrent creations with no_stream win', async () => {
        const stream = uniqueName('order-');
        const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => store.append(stream, eventsOf(1), 'no_stream')));
        expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
        expect(await store.readStream(stream)).toHaveLength(1);
      });
    });

    describe('readAll and positions', () => {
      it('returns events in commit order with strictly increasing positions, filtered by prefix', async () => {
        const prefix = uniqueName('ct') + '-';
        const from = await store.headPosition();
        const a = `${prefix}a`;
        const b = `${prefix}b`;
        const other = uniqueName('elsewhere-');
        await store.append(a, eventsOf(2), 'no_stream');
        await store.append(other, eventsOf(1), 'no_stream');
        await store.append(b, eventsOf(1), 'no_stream');
        await store.append(a, eventsOf(1), 1);

        const ours = await store.readAll({ after: from, streamPrefixes: [prefix] });
        expect(ours.map((e) => `${e.streamId}@${e.revision}`)).toEqual([`${a}@0`, `${a}@1`, `${b}@0`, `${a}@2`]);
        expectStrictlyIncreasing(ours.map((e) => e.position));

        const unfiltered = (await store.readAll({ after: from })).filter((e) => e.streamId.startsWith(prefix) || e.streamId === other);
        expect(unfiltered.map((e) => e.streamId)).toEqual([a, a, other, b, a]);
        expectStrictlyIncreasing(unfiltered.map((e) => e.position));

        const two = await store.readAll({ after: from, streamPrefixes: [`${prefix}b`, other] });
        expect(two.map((e) => e.streamId)).toEqual([other, b]);
      });

      it('treats after as exclusive and honours maxCount', async () => {
        const prefix = uniqueName('ct') + '-';
        const from = await store.headPosition();
        await store.append(`${prefix}x`, eventsOf(5), 'no_stream');
        const all = await store.readAll({ after: from, streamPrefixes: [prefix] });
        expect(all).toHaveLength(5);
        const second = all[1] as RecordedEvent;

        const rest = await store.readAll({ after: second.position, streamPrefixes: [prefix] });
        expect(rest.map((e) => e.revision)).toEqual([2, 3, 4]);
        const limited = await store.readAll({ after: from, streamPrefixes: [prefix], maxCount: 2 });
        expect(limited.map((e) => e.revision)).toEqual([0, 1]);
        const limitedAfter = await store.readAll({ after: second.position, streamPrefixes: [prefix], maxCount: 2 });
        expect(limitedAfter.map((e) => e.revision)).toEqual([2, 3]);
      });

      it('counts what readAll would return, after a position, by prefix, up to a cap, without deleted streams', async () => {
        const prefix = uniqueName('ct') + '-';
        const from = await store.headPosition();
        await store.append(`${prefix}x`, eventsOf(4), 'no_stream');
        await store.append(uniqueName('elsewhere-'), eventsOf(2), 'no_stream');
        await store.append(`${prefix}y`, eventsOf(1), 'no_stream');
        await store.append(`${prefix}gone`, eventsOf(2), 'no_stream');
        await store.deleteStream(`${prefix}gone`);
        const [, second] = await store.readAll({ after: from, streamPrefixes: [prefix] });

        expect(await store.countAfter({ after: from, streamPrefixes: [prefix], cap: 100 })).toBe(5);
        expect(await store.countAfter({ after: second?.position ?? from, streamPrefixes: [prefix], cap: 100 })).toBe(3);
        expect(await store.countAfter({ after: from, streamPrefixes: [prefix], cap: 2 })).toBe(2);
        expect(await store.countAfter({ after: from, streamPrefixes: [prefix], cap: 0 })).toBe(0);
        expect(await store.countAfter({ after: await store.headPosition(), streamPrefixes: [prefix], cap: 100 })).toBe(0);
        const stream = uniqueName('ct-count-start-');
        await store.append(stream, eventsOf(3), 'no_stream');
        expect(await store.countAfter({ streamPrefixes: [stream], cap: 100 })).toBe(3);
      });

      it('reads from the beginning when after is omitted or START', async () => {
        const stream = uniqueName('ct-start-');
        await store.append(stream, eventsOf(1), 'no_stream');
        const omitted = await store.readAll({ streamPrefixes: [stream] });
        const fromStart = await store.readAll({ after: START, streamPrefixes: [stream] });
        expect(omitted).toHaveLength(1);
        expect(fromStart).toEqual(omitted);
      });

      it('reports a head position at or after the last append, past which nothing of ours is read', async () => {
        const stream = uniqueName('order-');
        const result = await store.append(stream, eventsOf(3), 'no_stream');
        const head = await store.headPosition();
        expect(comparePositions(head, result.position)).toBeGreaterThanOrEqual(0);
        expect(comparePositions(head, START)).toBe(1);
        const after = await store.readAll({ after: head, streamPrefixes: [stream] });
        expect(after).toEqual([]);
      });
    });

    describe('deleteStream', () => {
      it('removes the stream from readStream and readAll and refuses later appends', async () => {
        const prefix = uniqueName('ct') + '-';
        const from = await store.headPosition();
        const doomed = `${prefix}doomed`;
        const kept = `${prefix}kept`;
        await store.append(doomed, eventsOf(3), 'no_stream');
        await store.append(kept, eventsOf(1), 'no_stream');

        await store.deleteStream(doomed);

        expect(await store.readStream(doomed)).toEqual([]);
        const all = await store.readAll({ after: from, streamPrefixes: [prefix] });
        expect(all.map((e) => e.streamId)).toEqual([kept]);
        for (const expected of ['any', 'no_stream', 2] as const) {
          const error = await store.append(doomed, eventsOf(1), expected).catch((e: unknown) => e);
          expect(error).toBeInstanceOf(StreamDeletedError);
          expect((error as StreamDeletedError).streamId).toBe(doomed);
        }
        expect(await store.readStream(kept)).toHaveLength(1);
      });

      it('tombstones a stream that never existed', async () => {
        const stream = uniqueName('order-');
        await store.deleteStream(stream);
        expect(await store.readStream(stream)).toEqual([]);
        await expect(store.append(stream, eventsOf(1), 'any')).rejects.toBeInstanceOf(StreamDeletedError);
      });
    });

    describeSubscriptionContract(() => store);
    describeHashChainContract(() => store);
  });
}

function withoutChain(metadata: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (metadata === undefined) return undefined;
  const { hash: _hash, prevHash: _prevHash, ...rest } = metadata;
  return rest;
}

function expectStrictlyIncreasing(positions: readonly Position[]): void {
  for (let i = 1; i < positions.length; i++) {
    const previous = positions[i - 1] as Position;
    const current = positions[i] as Position;
    expect(comparePositions(current, previous)).toBe(1);
  }
}
