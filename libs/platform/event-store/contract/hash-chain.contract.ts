import { randomUUID } from 'node:crypto';
import type { RecordedEvent } from '@lore/platform/kernel';
import { GENESIS_HASH, WrongExpectedRevisionError, verifyStreamChain } from '@lore/platform/event-store/port';
import type { ChainVerdict, EventStore } from '@lore/platform/event-store/port';
import { eventsOf, uniqueName } from './contract-helpers';

const HEX64 = /^[0-9a-f]{64}$/;

/** A stream of five events written in three appends (no_stream, a revision, any), read back. */
async function chainedStream(store: EventStore): Promise<RecordedEvent[]> {
  const stream = uniqueName('chain-');
  await store.append(stream, eventsOf(2), 'no_stream');
  await store.append(stream, [{ id: randomUUID(), type: 'test.Noted', data: { text: 'middle', list: [3, 1] }, metadata: { actor: 'user:a', workspaceId: 'ws' } }], 1);
  await store.append(stream, eventsOf(2), 'any');
  return store.readStream(stream);
}

/** A copy of the events with one replaced, as a tampered store would return them. */
function edited(events: readonly RecordedEvent[], index: number, change: (e: RecordedEvent) => RecordedEvent): RecordedEvent[] {
  return events.map((e, i) => (i === index ? change(e) : e));
}

function expectBroken(verdict: ChainVerdict, firstBadRevision: number, reason: string): void {
  expect(verdict).toMatchObject({ ok: false, firstBadRevision });
  expect(verdict.ok ? '' : verdict.reason).toContain(reason);
}

function unchained(event: RecordedEvent): RecordedEvent {
  const { hash: _hash, prevHash: _prevHash, ...metadata } = event.metadata;
  return { ...event, metadata };
}

/** The per-stream hash chain (tamper evidence); part of describeEventStoreContract, run with its store. */
export function describeHashChainContract(getStore: () => EventStore): void {
  describe('hash chain', () => {
    it('stamps every appended event with prevHash and hash, linked across appends from the genesis value', async () => {
      const events = await chainedStream(getStore());
      expect(events).toHaveLength(5);
      for (const e of events) {
        expect(e.metadata.hash).toMatch(HEX64);
        expect(e.metadata.prevHash).toMatch(HEX64);
      }
      expect(events[0]?.metadata.prevHash).toBe(GENESIS_HASH);
      for (let i = 1; i < events.length; i++) expect(events[i]?.metadata.prevHash).toBe(events[i - 1]?.metadata.hash);
      expect(verifyStreamChain(events)).toEqual({ ok: true, events: 5, unchained: 0 });
    });

    it('replaces chain fields a writer passed in (e.g. metadata copied from another event)', async () => {
      const store = getStore();
      const stream = uniqueName('chain-');
      await store.append(stream, [{ id: randomUUID(), type: 'test.Copied', data: {}, metadata: { hash: 'forged', prevHash: 'forged', actor: 'a' } }], 'no_stream');
      const events = await store.readStream(stream);
      expect(events[0]?.metadata.prevHash).toBe(GENESIS_HASH);
      expect(events[0]?.metadata.hash).toMatch(HEX64);
      expect(verifyStreamChain(events).ok).toBe(true);
    });

    it('keeps the chain whole under concurrent appends: a stale revision still conflicts, `any` appends all link', async () => {
      const store = getStore();
      const stream = uniqueName('chain-');
      await store.append(stream, eventsOf(1), 'no_stream');
      const racing = await Promise.allSettled([store.append(stream, eventsOf(1), 0), store.append(stream, eventsOf(1), 0)]);
      expect(racing.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const rejected = racing.find((r) => r.status === 'rejected');
      expect(rejected?.status === 'rejected' && rejected.reason).toBeInstanceOf(WrongExpectedRevisionError);
      await Promise.all(Array.from({ length: 4 }, () => store.append(stream, eventsOf(1), 'any')));
      const events = await store.readStream(stream);
      expect(events).toHaveLength(6);
      expect(verifyStreamChain(events)).toEqual({ ok: true, events: 6, unchained: 0 });
    });

    describe('verifyStreamChain', () => {
      it('names the revision whose data was edited', async () => {
        const events = await chainedStream(getStore());
        const verdict = verifyStreamChain(edited(events, 2, (e) => ({ ...e, data: { text: 'rewritten', list: [3, 1] } })));
        expectBroken(verdict, 2, 'does not match its hash');
      });

      it('names the revision whose metadata was edited', async () => {
        const events = await chainedStream(getStore());
        const verdict = verifyStreamChain(edited(events, 2, (e) => ({ ...e, metadata: { ...e.metadata, actor: 'user:b' } })));
        expect(verdict).toMatchObject({ ok: false, firstBadRevision: 2 });
      });

      it('detects a removed middle event, also when the later revisions were renumbered', async () => {
        const events = await chainedStream(getStore());
        const removed = events.filter((e) => e.revision !== 2);
        expectBroken(verifyStreamChain(removed), 2, 'missing');
        const renumbered = removed.map((e, i) => ({ ...e, revision: i }));
        expect(verifyStreamChain(renumbered)).toMatchObject({ ok: false, firstBadRevision: 2 });
      });

      it('detects a reordered pair, whether by order or by swapped revisions', async () => {
        const events = await chainedStream(getStore());
        const [a, b, c, d, e] = events as [RecordedEvent, RecordedEvent, RecordedEvent, RecordedEvent, RecordedEvent];
        expect(verifyStreamChain([a, b, d, c, e])).toMatchObject({ ok: false, firstBadRevision: 2 });
        const swapped = [a, b, { ...d, revision: 2 }, { ...c, revision: 3 }, e];
        expect(verifyStreamChain(swapped)).toMatchObject({ ok: false, firstBadRevision: 2 });
      });

      it('accepts events written before the chain as an unchained prefix, but not a chain stripped midway', async () => {
        const store = getStore();
        const stream = uniqueName('chain-');
        await store.append(stream, eventsOf(3), 'no_stream');
        const events = await store.readStream(stream);
        // Stripping the chain off the first event does not pass: the next still links to it.
        expect(verifyStreamChain(edited(events, 0, unchained))).toMatchObject({ ok: false, firstBadRevision: 1 });
        expect(verifyStreamChain(events.map(unchained))).toEqual({ ok: true, events: 3, unchained: 3 });
        expectBroken(verifyStreamChain(edited(events, 1, unchained)), 1, 'chain fields missing');
      });

      it('detects events cut off the end when given the recorded head', async () => {
        const events = await chainedStream(getStore());
        const last = events[4]?.metadata.hash as string;
        expect(verifyStreamChain(events, { revision: 4, hash: last }).ok).toBe(true);
        expect(verifyStreamChain(events.slice(0, 4), { revision: 4, hash: last })).toMatchObject({ ok: false, firstBadRevision: 4 });
      });
    });
  });
}
