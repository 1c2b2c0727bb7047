import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Clock } from '@lore/platform/kernel';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { verifyWorkspaceChains } from './workspace-chain-audit';

const dir = mkdtempSync(join(tmpdir(), 'lore-workspace-audit-'));
const events = openSqliteEventStore({ path: join(dir, 'events.db') });
const documents = openSqliteDocumentStore({ path: join(dir, 'documents.db'), durability: 'full' });
const stores = { events, documents };
const aggregates = [
  { collection: 'notes', streamId: (id: string) => `note-${id}` },
  { collection: 'tags', streamId: (id: string) => `tag-${id}` },
];
const systemClock: Clock = { now: () => new Date() };

/** One aggregate: its read-model document and a stream of `count` events. */
async function seed(collection: 'notes' | 'tags', workspace: string, id: string, count = 1): Promise<void> {
  await documents.collection(collection).upsert({ id, workspace_id: workspace });
  const prefix = collection === 'notes' ? 'note' : 'tag';
  await events.append(`${prefix}-${id}`, Array.from({ length: count }, () => ({ id: randomUUID(), type: `${prefix}.Changed`, data: { secret: 'never reported' }, metadata: { workspaceId: workspace } })), 'any');
}

beforeAll(async () => {
  for (const n of [1, 2, 3]) await seed('notes', 'ws-a', `a${n}`, 2);
  await seed('tags', 'ws-a', 'a-tag');
  await seed('notes', 'ws-b', 'b1');
  await documents.collection('notes').upsert({ id: 'a-gone', workspace_id: 'ws-a' }); // its stream deleted
  await events.append('note-a-gone', [{ id: randomUUID(), type: 'note.Changed', data: {} }], 'any');
  await events.deleteStream('note-a-gone');
});
afterAll(async () => {
  await events.close();
  await documents.close();
});

describe('verifyWorkspaceChains', () => {
  it("checks the workspace's streams of every aggregate type, counts deleted ones, and leaves other workspaces out", async () => {
    const report = await verifyWorkspaceChains(stores, aggregates, { workspaceId: 'ws-a', maxStreams: 100 }, systemClock);
    expect(report).toEqual({ streams: 5, events: 7, unchained: 0, unchainedStreams: 0, deleted: 1, broken: [], nextCursor: null });
  });

  it('stops at the stream cap and goes on from its cursor, each stream checked once', async () => {
    const first = await verifyWorkspaceChains(stores, aggregates, { workspaceId: 'ws-a', maxStreams: 3 }, systemClock);
    expect(first).toMatchObject({ streams: 3, nextCursor: expect.any(String) });
    const second = await verifyWorkspaceChains(stores, aggregates, { workspaceId: 'ws-a', maxStreams: 3, cursor: first.nextCursor! }, systemClock);
    expect(second).toMatchObject({ streams: 2, nextCursor: null });
    expect(first.events + second.events).toBe(7);
  });

  it('stops at the time bound with a cursor instead of holding the service', async () => {
    let now = 0;
    const stepping: Clock = { now: () => new Date((now += 1000)) }; // every look at the clock: a second later
    const report = await verifyWorkspaceChains(stores, aggregates, { workspaceId: 'ws-a', maxStreams: 100 }, stepping, 500);
    expect(report.nextCursor).not.toBeNull();
    expect(report.streams).toBe(4); // the first aggregate type's page, then it stops
  });

  it('refuses a cursor it did not issue', async () => {
    await expect(verifyWorkspaceChains(stores, aggregates, { workspaceId: 'ws-a', maxStreams: 10, cursor: 'WzksbnVsbF0' }, systemClock)).rejects.toMatchObject({ code: 'validation' });
    const forged = Buffer.from(JSON.stringify([0, 'not-a-read-model-cursor'])).toString('base64url');
    await expect(verifyWorkspaceChains(stores, aggregates, { workspaceId: 'ws-a', maxStreams: 10, cursor: forged }, systemClock)).rejects.toMatchObject({ code: 'validation' });
  });
});
