import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock, type RecordedEvent } from '@lore/platform/kernel';
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import type { Projection, ProjectionContext } from '@lore/platform/projections';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { eventually } from '@lore/platform/event-store/contract';
import { SqliteEventFeed } from '@lore/platform/transport/sqlite-feed';
import type { EventFeed, FollowOptions } from '@lore/platform/transport/port';
import { renderMetrics } from '@lore/platform/telemetry';
import { DISPATCH_CHECKPOINT, webhookDispatcher } from './webhook-dispatcher.worker';
import { WEBHOOKS, WEBHOOK_DELIVERIES } from './webhook.read-models';
import { WebhookWorkspaces } from './webhook-workspaces';
import { projectWebhookEvent } from './webhooks.projection';

/** One event through the webhooks projection, watched as the connections context runs it, its writes applied to `documents`. */
async function project(workspaces: WebhookWorkspaces, recorded: RecordedEvent, documents: DocumentStore): Promise<void> {
  const writes: DocumentWrite[] = [];
  const context: ProjectionContext = {
    get: (collection, id) => documents.collection(collection).get(id) as never,
    upsert: (collection, doc) => void writes.push({ collection, op: 'upsert', doc }),
    delete: (collection, id) => void writes.push({ collection, op: 'delete', id }),
    deleteMany: (collection, filter) => void writes.push({ collection, op: 'deleteMany', filter }),
  };
  await workspaces.watching({ name: 'webhooks.test', streamPrefixes: ['webhook-'], handle: projectWebhookEvent } as unknown as Projection).handle(recorded, context);
  await documents.write(writes);
}

const skippedCount = async (): Promise<number> => Number(/^lore_webhook_dispatch_skipped_total (\d+)$/m.exec((await renderMetrics()).body)?.[1] ?? 'NaN');

describe('webhook dispatcher (SQLite feed + SQLite document store)', () => {
  let dir: string;
  let feed: SqliteEventFeed;
  let documents: DocumentStore;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-dispatch-'));
    feed = SqliteEventFeed.open(join(dir, 'feed.db'), { maxAgeHours: 1 });
    documents = openSqliteDocumentStore({ path: ':memory:' });
  });

  afterEach(async () => {
    await documents.close();
    await feed.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('steps past an entry it keeps failing on, counts it in lore_webhook_dispatch_skipped_total and logs it; other workspaces get their deliveries', async () => {
    const webhooks = documents.collection(WEBHOOKS);
    // A damaged read-model document (event_types not a list) fails every entry of its workspace, for a reason of its own.
    await webhooks.upsert({ id: 'wh-bad', workspace_id: 'ws-bad', status: 'active', event_types: 7, created_at: '2000-01-01T00:00:00.000Z' });
    await webhooks.upsert({ id: 'wh-good', workspace_id: 'ws-good', status: 'active', event_types: [], created_at: '2000-01-01T00:00:00.000Z' });
    await documents.write([], { name: DISPATCH_CHECKPOINT, value: '0' });
    const logged: Array<{ details: Record<string, unknown>; message: string }> = [];
    const log = { warn: () => undefined, error: (details: Record<string, unknown>, message: string) => void logged.push({ details, message }) };
    const before = await skippedCount();

    const dispatcher = webhookDispatcher({ feed, documents, clock: systemClock, log, wakeSender: () => undefined, workspaces: new WebhookWorkspaces() });
    await dispatcher.start();
    try {
      const bad = { type: 'memory.created', event_id: randomUUID(), workspace_id: 'ws-bad', occurred_at: new Date().toISOString() };
      const started = Date.now();
      await feed.append(bad);
      await feed.append({ type: 'memory.created', event_id: randomUUID(), workspace_id: 'ws-good', occurred_at: new Date().toISOString() });
      await eventually(() => logged.length > 0, 10_000);
      // One immediate retry: the old 200 + 400 ms of sleeping held up every workspace's webhooks.
      expect(Date.now() - started).toBeLessThan(400);
      // The entry after the skipped one is dispatched.
      const deadline = Date.now() + 10_000;
      let delivered = (await documents.collection(WEBHOOK_DELIVERIES).find()).items;
      while (delivered.length === 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        delivered = (await documents.collection(WEBHOOK_DELIVERIES).find()).items;
      }
      expect(delivered).toMatchObject([{ webhook_id: 'wh-good', workspace_id: 'ws-good' }]);
      expect(await skippedCount()).toBe(before + 1);
      expect(logged).toMatchObject([{ details: { eventId: bad.event_id, workspaceId: 'ws-bad' }, message: expect.stringContaining('skipped') }]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('follows no feed while no workspace has a webhook, asks the document store nothing about events of workspaces without webhooks, and delivers to a webhook created later only what happens after it', async () => {
    await documents.write([], { name: DISPATCH_CHECKPOINT, value: '0' });
    // The entries the dispatcher is handed from the feed.
    let followed = 0;
    const countingFeed = {
      bounds: () => feed.bounds(),
      follow: (options: FollowOptions) =>
        (async function* () {
          for await (const page of feed.follow(options)) {
            followed += page.length;
            yield page;
          }
        })(),
    } as unknown as EventFeed;
    let webhookQueries = 0;
    const counting: DocumentStore = {
      ...documents,
      write: (writes, checkpoint) => documents.write(writes, checkpoint),
      getCheckpoint: (name) => documents.getCheckpoint(name),
      collection: <T extends Parameters<DocumentStore['collection']>[0]>(name: T) => {
        const collection = documents.collection(name);
        if (name !== WEBHOOKS) return collection;
        return { ...collection, find: (options) => ((webhookQueries += 1), collection.find(options)) } as typeof collection;
      },
    } as DocumentStore;
    const workspaces = new WebhookWorkspaces();
    const dispatcher = webhookDispatcher({ feed: countingFeed, documents: counting, clock: systemClock, log: { warn: () => undefined, error: () => undefined }, wakeSender: () => undefined, workspaces });
    await dispatcher.start();
    try {
      const event = (workspace: string) => ({ type: 'memory.created', event_id: randomUUID(), workspace_id: workspace, occurred_at: new Date().toISOString() });
      for (let i = 0; i < 20; i++) await feed.append(event('ws-quiet'));
      await new Promise((resolve) => setTimeout(resolve, 200));
      const atStart = webhookQueries; // the load of active webhooks at start
      expect(atStart).toBeLessThanOrEqual(1);
      // No webhook anywhere: the feed is not read at all.
      expect(followed).toBe(0);

      // A webhook created now: the connections projection notes its workspace as it applies the creation.
      const projection = workspaces.watching({ name: 'test', streamPrefixes: [], collections: [], handle: async () => undefined });
      const createdAt = new Date().toISOString();
      await projection.handle(
        { id: randomUUID(), streamId: 'webhook-wh-new', type: 'connections.WebhookCreated', revision: 0, position: { commit: 1n, prepare: 1n }, recordedAt: createdAt, metadata: {}, data: { webhookId: 'wh-new', workspaceId: 'ws-new', url: 'https://example.com/hook', description: '', eventTypes: [], secret: 's', createdBy: 'u', createdAt } },
        { get: async () => null, upsert: () => undefined, delete: () => undefined, deleteMany: () => undefined },
      );
      await documents.collection(WEBHOOKS).upsert({ id: 'wh-new', workspace_id: 'ws-new', status: 'active', event_types: [], created_at: createdAt });
      const after = event('ws-new');
      await feed.append(after);
      let delivered = (await documents.collection(WEBHOOK_DELIVERIES).find()).items;
      for (const deadline = Date.now() + 10_000; delivered.length === 0 && Date.now() < deadline; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        delivered = (await documents.collection(WEBHOOK_DELIVERIES).find()).items;
      }
      expect(delivered).toMatchObject([{ webhook_id: 'wh-new', event_id: after.event_id }]);
      // Only the new workspace's event was looked up; the quiet workspace's, read once the webhook existed, were stepped past.
      expect(webhookQueries).toBe(atStart + 1);
      expect(followed).toBe(21);
    } finally {
      await dispatcher.stop();
    }
  });

  it('queues none of the events from while a webhook was disabled once it is enabled again, though the dispatcher reaches them only then', async () => {
    const createdAt = '2000-01-01T00:00:00.000Z';
    const webhook = { id: 'wh-1', workspace_id: 'ws', status: 'disabled', event_types: [], created_at: createdAt, active_since: createdAt };
    // After a restart the only webhook is disabled (say, after sustained failures): the dispatcher waits at its checkpoint.
    await documents.collection(WEBHOOKS).upsert(webhook);
    await documents.write([], { name: DISPATCH_CHECKPOINT, value: String((await feed.bounds()).last) });
    const workspaces = new WebhookWorkspaces();
    const dispatcher = webhookDispatcher({ feed, documents, clock: systemClock, log: { warn: () => undefined, error: () => undefined }, wakeSender: () => undefined, workspaces });
    await dispatcher.start();
    try {
      for (let i = 0; i < 5; i++) await feed.append({ type: 'memory.created', event_id: randomUUID(), workspace_id: 'ws', occurred_at: new Date().toISOString() });
      await new Promise((resolve) => setTimeout(resolve, 20));
      // Enabled again: the projection (as the connections context runs it) notes the workspace, which wakes the dispatcher.
      const enabledAt = new Date().toISOString();
      await project(workspaces, { id: randomUUID(), streamId: 'webhook-wh-1', type: 'connections.WebhookEnabled', revision: 3, position: { commit: 9n, prepare: 9n }, recordedAt: enabledAt, metadata: {}, data: { webhookId: 'wh-1', at: enabledAt } }, documents);
      const after = { type: 'memory.created', event_id: randomUUID(), workspace_id: 'ws', occurred_at: new Date(Date.parse(enabledAt) + 1).toISOString() };
      await feed.append(after);
      const deliveries = documents.collection<{ id: string; event_id: string }>(WEBHOOK_DELIVERIES);
      let queued = (await deliveries.find()).items.map((d) => d.event_id);
      for (const deadline = Date.now() + 5_000; !queued.includes(after.event_id) && Date.now() < deadline; queued = (await deliveries.find()).items.map((d) => d.event_id)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(queued).toEqual([after.event_id]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('keeps its starting place at once on a first start, so that a pause (no webhooks yet) resumes from there after a restart', async () => {
    for (let i = 0; i < 3; i++) await feed.append({ type: 'memory.created', event_id: randomUUID(), workspace_id: 'ws', occurred_at: new Date().toISOString() });
    const dispatcher = webhookDispatcher({ feed, documents, clock: systemClock, log: { warn: () => undefined, error: () => undefined }, wakeSender: () => undefined, workspaces: new WebhookWorkspaces() });
    await dispatcher.start();
    try {
      let saved = await documents.getCheckpoint(DISPATCH_CHECKPOINT);
      for (const deadline = Date.now() + 5_000; saved === null && Date.now() < deadline; saved = await documents.getCheckpoint(DISPATCH_CHECKPOINT)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(saved).toBe(String((await feed.bounds()).last));
    } finally {
      await dispatcher.stop();
    }
  });
});
