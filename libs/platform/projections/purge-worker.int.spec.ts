import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { DocumentStore } from '@lore/platform/documents/port';
import { START, waitWithinDeadline, withRequestContext } from '@lore/platform/kernel';
import { keyedPurgeWork, type KeyedPurge } from './keyed-purges';
import { PurgeWorker } from './purge-worker';

const PURGE: KeyedPurge = { records: 'purges', collection: 'docs', key: 'owner', order: 'n', page: 50 };
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

  it('waits with no deadline of that request, and so does the next purge', async () => {
    const waits: Record<string, number> = {};
    const worker = new PurgeWorker({
      documents,
      events: { headPosition: async () => START },
      log: { error: () => undefined },
      kind: 'test',
      ...keyedPurgeWork(documents, PURGE),
      readModelsPassed: async (_head, deletion) => {
        const id = deletion.commit === 1n ? 'a' : 'b';
        waits[id] = waitWithinDeadline(NO_DEADLINE);
        if (id === 'a') await new Promise((resolve) => setTimeout(resolve, 500));
      },
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

  it('waits for more purges at once than an engine binds in one query (a user\'s 40,000 deleted memories)', async () => {
    const worker = new PurgeWorker({ documents, events: { headPosition: async () => START }, log: { error: () => undefined }, kind: 'test', ...keyedPurgeWork(documents, PURGE), readModelsPassed: async () => undefined });
    const ids = Array.from({ length: 40_000 }, (_, i) => `memory-${i}`);
    await documents.write([{ collection: PURGE.records, op: 'upsert', doc: record(ids.at(-1)!, 'ws_a', 1) }]);
    await expect(worker.drained(ids, 5_000)).resolves.toBeUndefined();
    expect(await documents.collection(PURGE.records).count()).toBe(0);
    await worker.stop();
  });
});
