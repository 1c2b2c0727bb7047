import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '@lore/platform/kernel';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { eventually } from '@lore/platform/event-store/contract';
import { SqliteEventFeed } from '@lore/platform/transport/sqlite-feed';
import { renderMetrics } from '@lore/platform/telemetry';
import { DISPATCH_CHECKPOINT, webhookDispatcher } from './webhook-dispatcher.worker';
import { WEBHOOKS, WEBHOOK_DELIVERIES } from './webhook.read-models';

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

    const dispatcher = webhookDispatcher({ feed, documents, clock: systemClock, log, wakeSender: () => undefined });
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
});
