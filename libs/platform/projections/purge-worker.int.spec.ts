import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { DocumentStore } from '@lore/platform/documents/port';
import { START, waitWithinDeadline, withRequestContext } from '@lore/platform/kernel';
import { randomUUID } from 'node:crypto';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { eventually } from '@lore/platform/event-store/contract';
import { afterErasure, keyedPurgeWork, type KeyedPurge } from './keyed-purges';
import { FIRST_PAGE, PAGE_TARGET_MS, PurgeWorker, nextPageSize, purgePosition, type PurgeDoc, type PurgeWorkerDeps } from './purge-worker';
import { EventProcessors } from './event-processors';
import type { Reactor } from './projection';

const PURGE: KeyedPurge = { records: 'purges', collection: 'docs', key: 'owner', order: 'n' };
const record = (id: string, workspaceId: string, n: number) => ({ id, workspace_id: workspaceId, position: `${String(n).padStart(20, '0')}:${String(n).padStart(20, '0')}` });
const NO_DEADLINE = 600_000;

/**
 * A purge worker's work is its own, not the request's that woke it: a DELETE waiting for a
 * purge must not hand its deadline to the purge, nor to every purge the worker starts after it
 * (another workspace's included), whose waits for the read models and the erasure it would cut
 * to what is left of that request, then to nothing.
 */
describe('a purge woken by a request', () => {
  let documents: DocumentStore;
  beforeEach(async () => {
    documents = openSqliteDocumentStore({ path: ':memory:' });
    await documents.collection(PURGE.records).ensureIndex(['workspace_id', 'position']);
  });
  afterEach(() => documents.close());
  /** A worker over `documents` whose purges wait as `readModelsPassed` says. */
  const workerWaiting = (readModelsPassed: PurgeWorkerDeps<PurgeDoc>['readModelsPassed']): PurgeWorker<PurgeDoc> =>
    new PurgeWorker({ documents, events: { headPosition: async () => START }, log: { error: () => undefined }, kind: 'test', ...keyedPurgeWork(documents, PURGE), readModelsPassed });

  it('waits with no deadline of that request, and so does the next purge', async () => {
    const waits: Record<string, number> = {};
    const worker = workerWaiting(async (_head, deletion) => {
      const id = deletion.commit === 1n ? 'a' : 'b';
      waits[id] = waitWithinDeadline(NO_DEADLINE);
      if (id === 'a') await new Promise((resolve) => setTimeout(resolve, 500));
    });
    await documents.write([{ collection: PURGE.records, op: 'upsert', doc: record('a', 'ws_a', 1) }]);
    // The DELETE's wait, inside a request whose deadline is 300 ms away.
    await withRequestContext({ requestId: 'r1', deadline: Date.now() + 300 }, () => worker.drained(['a'], 100).catch(() => undefined));
    // Another workspace's deletion, recorded later: the worker starts it when the first one ends.
    await documents.write([{ collection: PURGE.records, op: 'upsert', doc: record('b', 'ws_b', 2) }]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await worker.stop();
    expect(waits).toEqual({ a: NO_DEADLINE, b: NO_DEADLINE });
  });

  it('starts other workspaces\' purges while purges wait for their erasure: a wait holds no lane', async () => {
    // A hundred workspaces' deletions wait for an erasure that has not come (the erasure reactor is busy with another's).
    const erasureDone = { release: (): void => undefined };
    const erased = new Promise<void>((resolve) => (erasureDone.release = resolve));
    const worker = workerWaiting(async (_head, _deletion, purge) => {
      if (purge.id !== 'attempt') await erased;
    });
    await documents.write(Array.from({ length: 100 }, (_, i) => ({ collection: PURGE.records, op: 'upsert' as const, doc: record(`deleted-${i}`, `ws_${i}`, i + 1) })));
    await documents.write([{ collection: PURGE.collection, op: 'upsert', doc: { id: 'doc-attempt', owner: 'attempt', n: 1 } }]);
    await worker.start();
    // Four of them waited for by their DELETEs (ahead of their workspaces' queues), the others in their turn.
    const deletes = worker.drained(['deleted-4', 'deleted-5', 'deleted-6', 'deleted-7'], 10_000);
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A purge that follows no erasure (a content's earlier attempt), waited for and not: both run now.
    await documents.write([{ collection: PURGE.records, op: 'upsert', doc: record('attempt', 'ws_z', 1_000) }]);
    await expect(worker.drained(['attempt'], 2_000)).resolves.toBeUndefined();
    expect(await documents.collection(PURGE.collection).get('doc-attempt')).toBeNull();
    erasureDone.release();
    await expect(deletes).resolves.toBeUndefined();
    await expect(worker.drained(Array.from({ length: 100 }, (_, i) => `deleted-${i}`), 10_000)).resolves.toBeUndefined();
    await worker.stop();
  });

  it('waits for more purges at once than an engine binds in one query (a user\'s 40,000 deleted memories)', async () => {
    const worker = workerWaiting(async () => undefined);
    const ids = Array.from({ length: 40_000 }, (_, i) => `memory-${i}`);
    await documents.write([{ collection: PURGE.records, op: 'upsert', doc: record(ids.at(-1)!, 'ws_a', 1) }]);
    await expect(worker.drained(ids, 5_000)).resolves.toBeUndefined();
    expect(await documents.collection(PURGE.records).count()).toBe(0);
    await worker.stop();
  });
});

/**
 * A page's size follows the time pages take: a conversation's 100 messages took ~65 ms a page
 * under FTS5's secure-delete, every such page holding every other workspace's requests back.
 */
describe('purge page sizes', () => {
  it('shrink when pages run long, towards PAGE_TARGET_MS, and never below ten items', () => {
    expect(nextPageSize(FIRST_PAGE, FIRST_PAGE, 65)).toBe(Math.floor((FIRST_PAGE * PAGE_TARGET_MS) / 65));
    expect(nextPageSize(20, 20, 1_000)).toBe(10);
  });

  it('grow while full pages run short, up to a thousand items, and stay put near the target', () => {
    expect(nextPageSize(FIRST_PAGE, FIRST_PAGE, 1)).toBe(FIRST_PAGE * 2);
    expect(nextPageSize(800, 800, 1)).toBe(1_000);
    expect(nextPageSize(FIRST_PAGE, FIRST_PAGE, PAGE_TARGET_MS)).toBe(FIRST_PAGE);
    // The last page was short of its size: nothing more to gain.
    expect(nextPageSize(FIRST_PAGE, 3, 1)).toBe(FIRST_PAGE);
  });

  it('a purge whose pages are slow asks for smaller ones', async () => {
    const documents = openSqliteDocumentStore({ path: ':memory:' });
    await documents.collection(PURGE.records).ensureIndex(['workspace_id', 'position']);
    let left = 1_000;
    const limits: number[] = [];
    const worker = new PurgeWorker({
      documents,
      events: { headPosition: async () => START },
      log: { error: () => undefined },
      kind: 'test',
      records: PURGE.records,
      readModelsPassed: async () => undefined,
      // Half a millisecond an item, on the event loop, as a secure-delete full-text index takes.
      removePage: async (_purge, limit) => {
        limits.push(limit);
        const removed = Math.min(left, limit);
        const until = performance.now() + removed / 2;
        while (performance.now() < until);
        left -= removed;
        return removed;
      },
    });
    await documents.write([{ collection: PURGE.records, op: 'upsert', doc: record('a', 'ws_a', 1) }]);
    await worker.drained(['a'], 30_000);
    await worker.stop();
    await documents.close();
    expect(left).toBe(0);
    expect(limits[0]).toBe(FIRST_PAGE);
    expect(Math.max(...limits.slice(1))).toBeLessThanOrEqual(PAGE_TARGET_MS * 2);
  });
});

/**
 * A keyed purge ends after its deletion's erasure (`afterErasure`). An erasure that fails and
 * parks the deletion passes its position all the same; the purge must not take that for done
 * (its end tells a repeated DELETE the data is gone): it stays pending until the erasure is retried.
 */
describe('a keyed purge after a parked erasure', () => {
  it('stays pending while the erasure is parked, holds back no later purge of its workspace, and ends once the erasure is retried', async () => {
    const events = openSqliteEventStore({ path: ':memory:' });
    const documents = openSqliteDocumentStore({ path: ':memory:' });
    await documents.collection(PURGE.records).ensureIndex(['workspace_id', 'position']);
    let erasureFails = true;
    const erasure: Reactor = {
      name: 'test.erasure',
      streamPrefixes: ['thing-'],
      async react(events) {
        if (erasureFails && events.some((event) => event.streamId === 'thing-a')) throw new Error('the keyring is unreachable');
      },
    };
    const processors = new EventProcessors({ projections: [], reactors: [erasure] }, events, documents, () => undefined, undefined, { parking: { attempts: 2 } });
    await processors.start();
    const worker = new PurgeWorker({
      documents,
      events,
      log: { error: () => undefined },
      kind: 'test',
      ...keyedPurgeWork(documents, PURGE),
      readModelsPassed: afterErasure(
        { settle: (position, timeoutMs) => processors.waitFor(position, timeoutMs), settleReactor: (name, position, timeoutMs, streams) => processors.waitForOne(name, position, timeoutMs, streams) },
        10_000,
        (purge) => ({ reactor: 'test.erasure', stream: `thing-${purge.id}` }),
      ),
    });
    await worker.start();
    try {
      const deleted = await events.append('thing-a', [{ id: randomUUID(), type: 'test.ThingDeleted', data: {} }], 'no_stream');
      await documents.write([
        { collection: PURGE.collection, op: 'upsert', doc: { id: 'doc-1', owner: 'a', n: 1 } },
        { collection: PURGE.records, op: 'upsert', doc: { id: 'a', workspace_id: 'ws_a', position: purgePosition(deleted.position) } },
      ]);
      await eventually(() => processors.parkedCounts()['test.erasure'] === 1, 10_000);

      await expect(worker.drained(['a'], 1_500)).rejects.toThrow(/not removed within/);
      expect(await documents.collection(PURGE.collection).get('doc-1')).not.toBeNull();

      // The same workspace's next deletion, which nobody waits for: the worker's scan gets to it past the stuck one.
      const next = await events.append('thing-b', [{ id: randomUUID(), type: 'test.ThingDeleted', data: {} }], 'no_stream');
      await documents.write([
        { collection: PURGE.collection, op: 'upsert', doc: { id: 'doc-2', owner: 'b', n: 1 } },
        { collection: PURGE.records, op: 'upsert', doc: { id: 'b', workspace_id: 'ws_a', position: purgePosition(next.position) } },
      ]);
      for (const until = Date.now() + 10_000; (await documents.collection(PURGE.collection).get('doc-2')) !== null; ) {
        if (Date.now() > until) throw new Error('the later purge did not run');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await documents.collection(PURGE.collection).get('doc-1')).not.toBeNull();

      erasureFails = false;
      expect(await processors.retryParked({ processor: 'test.erasure' })).toMatchObject({ applied: 1, failed: [] });
      await worker.drained(['a'], 10_000);
      expect(await documents.collection(PURGE.collection).get('doc-1')).toBeNull();
    } finally {
      await worker.stop();
      await processors.stop();
      await events.close();
      await documents.close();
    }
  });
});
