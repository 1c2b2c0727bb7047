import { randomUUID } from 'node:crypto';
import { positionToString, type Position, type RecordedEvent } from '@lore/platform/kernel';
import type { Doc, DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { EventStore } from '@lore/platform/event-store/port';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { eventually } from '@lore/platform/event-store/contract';
import { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
import type { Projection, Reactor, VectorProjection } from './projection';
import { EventProcessors } from './event-processors';
import { PARKED_COLLECTION } from './parked-event';

interface NoteDoc extends Doc {
  readonly revisions: number[];
}

const NOTES = 'test-notes-v1';
const ERASER = 'test-eraser';
const WAIT_MS = 10_000;
/** What the poison event carries: must never reach a parked record. */
const USER_TEXT = 'private words of the user';

/**
 * A projection that lists, per `note-` stream, the revisions it applied (so order and
 * duplicates show), deletes on `test.Deleted`, and fails on a poison event until cured,
 * the way an identifier too long for a store's index fails every time.
 */
function notesProjection(): Projection & { cured: boolean; poisonCalls: number } {
  const projection = {
    name: NOTES,
    streamPrefixes: ['note-'],
    collections: ['test_notes'],
    cured: false,
    poisonCalls: 0,
    async handle(event: RecordedEvent, context: Parameters<Projection['handle']>[1]) {
      if (event.type === 'test.Deleted') return context.delete('test_notes', event.streamId);
      if (event.type === 'test.Poison') {
        projection.poisonCalls++;
        if (!projection.cured) throw new RangeError('identifier exceeds the index limit of 255 characters');
      }
      const current = await context.get<NoteDoc>('test_notes', event.streamId);
      context.upsert('test_notes', { id: event.streamId, revisions: [...(current?.revisions ?? []), event.revision] });
    },
  };
  return projection;
}

/** Stands in for an erasure reactor: what it is named matters to `waitForAllBut`. */
const eraser: Reactor = { name: ERASER, streamPrefixes: ['note-'], react: async () => undefined };

describe('parked events (SQLite event store + SQLite document store)', () => {
  let events: EventStore;
  let documents: DocumentStore;
  let projection: ReturnType<typeof notesProjection>;
  let processors: EventProcessors;
  const errors: string[] = [];

  const open = async (): Promise<EventProcessors> => {
    processors = new EventProcessors({ projections: [projection], reactors: [eraser] }, events, documents, (_name, error) => errors.push(String(error)), null, {
      parking: { attempts: 3 },
    });
    await processors.start();
    return processors;
  };
  const append = async (streamId: string, workspaceId: string, type = 'test.Noted'): Promise<Position> =>
    (await events.append(streamId, [{ id: randomUUID(), type, data: { text: USER_TEXT }, metadata: { workspaceId } }], 'any')).position;
  const notes = async (): Promise<Record<string, number[]>> => {
    const page = await documents.collection<NoteDoc>('test_notes').find({ sort: [['id', 'asc']] });
    return Object.fromEntries(page.items.map((d) => [d.id, d.revisions]));
  };
  const settled = async (): Promise<void> => {
    const head = await events.headPosition();
    await eventually(() => processors.runners.every((r) => positionToString(r.checkpoint) === positionToString(head)), WAIT_MS);
  };

  /** ws-a's note-a1 gets a good event, the poison one and one more; note-a2 (ws-a) and note-b1 (ws-b) go on. */
  const poisonOneStream = async (): Promise<{ poison: Position; behind: Position }> => {
    await append('note-a1', 'ws-a');
    const poison = await append('note-a1', 'ws-a', 'test.Poison');
    const behind = await append('note-a1', 'ws-a');
    await append('note-a2', 'ws-a');
    await append('note-b1', 'ws-b');
    await settled();
    return { poison, behind };
  };

  beforeEach(() => {
    errors.length = 0;
    events = openSqliteEventStore({ path: ':memory:' });
    documents = openSqliteDocumentStore({ path: ':memory:' });
    projection = notesProjection();
  });

  afterEach(async () => {
    await processors.stop();
    await documents.close();
    await events.close();
  });

  it('parks the failing event after bounded attempts and the rest of its stream behind it; other streams and workspaces move on', async () => {
    await open();
    const { poison, behind } = await poisonOneStream();

    expect(await notes()).toEqual({ 'note-a1': [0], 'note-a2': [0], 'note-b1': [0] });
    // Once in the batch that failed, then three times alone.
    expect(projection.poisonCalls).toBe(4);
    expect(processors.isReady()).toBe(true);
    expect(processors.status()[NOTES]).toBe('live');
    expect(processors.parkedCounts()).toEqual({ [NOTES]: 2 });
    const [failed, waiting] = processors.listParked();
    expect(failed).toMatchObject({
      processor: NOTES, streamId: 'note-a1', position: positionToString(poison), eventType: 'test.Poison', workspaceId: 'ws-a',
      reason: 'failed', blockedBy: null, attempts: 3, error: 'RangeError: identifier exceeds the index limit of 255 characters',
    });
    expect(Date.parse(failed?.lastFailedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(failed?.firstFailedAt ?? ''));
    expect(waiting).toMatchObject({ streamId: 'note-a1', position: positionToString(behind), reason: 'waiting-behind', blockedBy: failed?.eventId, attempts: 0 });
    // Stored with the checkpoint, and nothing of the event's data in them.
    const stored = await documents.collection(PARKED_COLLECTION).find();
    expect(stored.items).toHaveLength(2);
    expect(JSON.stringify(stored.items)).not.toContain(USER_TEXT);
    expect(await documents.getCheckpoint(NOTES)).toBe(positionToString(await events.headPosition()));
    expect(await processors.metrics()).toEqual([
      { processor: NOTES, state: 'live', parked: 2, lag: 0 },
      { processor: ERASER, state: 'live', parked: 0, lag: 0 },
    ]);
    await processors.stop();
    await append('note-c1', 'ws-c');
    await append('other-x', 'ws-c');
    expect((await processors.metrics(0)).map((m) => [m.processor, m.lag])).toEqual([[NOTES, 1], [ERASER, 1]]);
  });

  it('parks a poison event at once with the default options (one immediate retry, no sleeping in the shared runner)', async () => {
    processors = new EventProcessors({ projections: [projection], reactors: [eraser] }, events, documents, () => undefined);
    await processors.start();
    await append('note-a1', 'ws-a');
    const started = Date.now();
    await append('note-a1', 'ws-a', 'test.Poison');
    await eventually(() => processors.parkedCounts()[NOTES] === 1, WAIT_MS);
    // The old backoff slept 200 + 400 ms in the runner every tenant shares.
    expect(Date.now() - started).toBeLessThan(400);
    expect(processors.listParked()).toMatchObject([{ reason: 'failed', attempts: 2 }]);
    // Once in its batch, then twice alone.
    expect(projection.poisonCalls).toBe(3);
  });

  it('counts lag without reading events, and reuses a count for a few seconds however often metrics are scraped', async () => {
    let reads = 0;
    const counted = new Proxy(events, {
      get(target, property, receiver) {
        if (property === 'readAll') reads++;
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    processors = new EventProcessors({ projections: [projection], reactors: [eraser] }, counted, documents, () => undefined);
    await processors.start();
    await append('note-a1', 'ws-a');
    await settled();
    await processors.stop();
    await append('note-a2', 'ws-a');
    reads = 0;
    expect(await processors.lagByProcessor()).toEqual({ [NOTES]: 1, [ERASER]: 1 });
    await append('note-a3', 'ws-a');
    for (let scrape = 0; scrape < 20; scrape++) expect(await processors.lagByProcessor()).toEqual({ [NOTES]: 1, [ERASER]: 1 });
    expect(reads).toBe(0);
    expect((await processors.metrics(0)).map((m) => m.lag)).toEqual([2, 2]);
  });

  it('keeps them parked across a restart without failing them again; later events of the stream park behind', async () => {
    await open();
    await poisonOneStream();
    await processors.stop();
    projection.poisonCalls = 0;

    await open();
    await append('note-a1', 'ws-a');
    await append('note-b1', 'ws-b');
    await settled();
    expect(projection.poisonCalls).toBe(0);
    expect(processors.listParked().map((r) => r.reason)).toEqual(['failed', 'waiting-behind', 'waiting-behind']);
    expect(await notes()).toEqual({ 'note-a1': [0], 'note-a2': [0], 'note-b1': [0, 1] });
  });

  it('answers read-your-writes for a parked stream at once with 503 naming the processor; other streams are answered', async () => {
    await open();
    await append('note-a1', 'ws-a');
    const poison = await append('note-a1', 'ws-a', 'test.Poison');
    // Waiting while the event is being parked: rejected as soon as it is, not at the timeout.
    const started = Date.now();
    await expect(processors.waitFor(poison, WAIT_MS, ['note-a1'])).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining(`${NOTES} has parked event`) });
    expect(Date.now() - started).toBeLessThan(WAIT_MS / 2);

    const later = await append('note-a1', 'ws-a');
    const fast = Date.now();
    await expect(processors.waitFor(later, WAIT_MS, ['note-a1'])).rejects.toMatchObject({ code: 'unavailable' });
    expect(Date.now() - fast).toBeLessThan(100);
    const other = await append('note-b1', 'ws-b');
    await expect(processors.waitFor(other, WAIT_MS, ['note-b1'])).resolves.toBeUndefined();
  });

  it('retries after the cause is fixed: applies the stream in order and removes the records; a failing retry keeps them with attempts incremented', async () => {
    await open();
    await poisonOneStream();
    const [failed] = processors.listParked();

    const again = await processors.retryParked({ id: failed?.id });
    expect(again).toMatchObject({ applied: 0, failed: [{ eventId: failed?.eventId, attempts: 4, reason: 'failed' }] });
    expect(processors.listParked()).toHaveLength(2);

    projection.cured = true;
    expect(await processors.retryParked({})).toEqual({ applied: 2, failed: [] });
    expect(processors.listParked()).toEqual([]);
    expect(processors.parkedCounts()).toEqual({});
    expect((await documents.collection(PARKED_COLLECTION).find()).items).toEqual([]);
    expect(await notes()).toEqual({ 'note-a1': [0, 1, 2], 'note-a2': [0], 'note-b1': [0] });
    // The stream is no longer parked: its next write is applied and read-your-writes holds.
    const next = await append('note-a1', 'ws-a');
    await processors.waitFor(next, WAIT_MS, ['note-a1']);
    expect((await notes())['note-a1']).toEqual([0, 1, 2, 3]);
  });

  it('a rebuild drops the parked records and parks again what still fails, also when its runner was never started (the rebuild tool)', async () => {
    await open();
    await poisonOneStream();
    await processors.stop();
    projection.poisonCalls = 0;
    const rebuilder = new EventProcessors({ projections: [projection], reactors: [eraser] }, events, documents, () => undefined, null, { parking: { attempts: 2 } });
    processors = rebuilder;
    await rebuilder.rebuild([NOTES], WAIT_MS);
    expect(projection.poisonCalls).toBe(3);
    expect(rebuilder.listParked().map((r) => [r.reason, r.attempts])).toEqual([['failed', 2], ['waiting-behind', 0]]);
    expect((await documents.collection(PARKED_COLLECTION).find()).items).toHaveLength(2);
    expect(await notes()).toEqual({ 'note-a1': [0], 'note-a2': [0], 'note-b1': [0] });
  });

  it('answers waiters when stopped, rather than at their timeout (an erasure waiting for others must not hold a stop up)', async () => {
    await open();
    const head = await events.headPosition();
    const waiting = processors.waitFor({ commit: head.commit + 10n, prepare: head.prepare + 10n }, WAIT_MS);
    const started = Date.now();
    await processors.stop();
    await expect(waiting).rejects.toMatchObject({ code: 'unavailable', message: `${NOTES} stopped` });
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it("lists and retries a workspace's parked events only through its own filter", async () => {
    await open();
    await poisonOneStream();
    const [failed] = processors.listParked();
    expect(processors.listParked({ workspaceId: 'ws-b' })).toEqual([]);
    expect(processors.listParked({ workspaceId: 'ws-a' })).toHaveLength(2);
    projection.cured = true;
    expect(await processors.retryParked({ id: failed?.id, workspaceId: 'ws-b' })).toBeNull();
    expect(await processors.retryParked({ workspaceId: 'ws-b' })).toEqual({ applied: 0, failed: [] });
    expect(processors.listParked()).toHaveLength(2);
  });

  it('never blocks erasure on an event parked elsewhere, and erasing the stream leaves no parked record nor read-model document', async () => {
    await open();
    await append('note-a1', 'ws-a');
    await append('note-a1', 'ws-a', 'test.Poison');
    const deletion = await append('note-a1', 'ws-a', 'test.Deleted');
    await settled();
    expect(processors.listParked().map((r) => r.eventType)).toEqual(['test.Poison', 'test.Deleted']);

    const started = Date.now();
    await processors.waitForAllBut(ERASER, deletion, WAIT_MS, ['note-a1']);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(processors.listParked()).toEqual([]);
    expect((await documents.collection(PARKED_COLLECTION).find()).items).toEqual([]);
    expect(await notes()).toEqual({});
  });

  it('parks for a vector projection too: records in the document store, checkpoint in the vector store, nothing re-failed after a restart', async () => {
    const vectors = openSqliteVectorStore({ path: ':memory:' });
    let calls = 0;
    const index = { name: 'test_points', dimensions: 2, distance: 'cosine' as const };
    const points: VectorProjection = {
      name: 'test-points-v1',
      streamPrefixes: ['note-'],
      target: 'vectors',
      async handle(event, context) {
        if (event.type === 'test.Poison') {
          calls++;
          throw new RangeError('point id too long');
        }
        await context.ensureIndex(index);
        context.write({ op: 'upsert', index: index.name, points: [{ id: event.id, collectionId: event.streamId, vector: [1, 0], text: 't', payload: { content_id: event.streamId, chunk_index: event.revision, source: null, tags: [], metadata: {} } }] });
      },
    };
    const start = async (): Promise<EventProcessors> => {
      processors = new EventProcessors({ projections: [points], reactors: [] }, events, documents, () => undefined, vectors, { parking: { attempts: 2 } });
      await processors.start();
      return processors;
    };
    try {
      await start();
      await poisonOneStream();
      expect(calls).toBe(3);
      expect(processors.listParked().map((r) => [r.processor, r.reason])).toEqual([['test-points-v1', 'failed'], ['test-points-v1', 'waiting-behind']]);
      expect(await vectors.getCheckpoint('test-points-v1')).toBe(positionToString(await events.headPosition()));
      expect(await vectors.index(index.name).count({ collections: ['note-a1', 'note-a2', 'note-b1'] })).toBe(3);
      await processors.stop();
      await start();
      await append('note-b1', 'ws-b');
      await settled();
      expect(calls).toBe(3);
      expect((await documents.collection(PARKED_COLLECTION).find()).items).toHaveLength(2);
    } finally {
      await processors.stop();
      await vectors.close();
    }
  });
});
