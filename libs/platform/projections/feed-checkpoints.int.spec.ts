import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { positionToString, type RecordedEvent } from '@lore/platform/kernel';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { eventually } from '@lore/platform/event-store/contract';
import { SqliteEventFeed } from '@lore/platform/transport/sqlite-feed';
import type { Reactor } from './projection';
import { ProjectionRunner } from './projection-runner';

/**
 * Issue 17: a publisher's checkpoint lives in the feed it fills (written after the rows), so the
 * feed needs no fsync of its own; a data directory from before resumes from the document store's.
 */
describe('a reactor whose checkpoint is kept in the feed', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-feed-checkpoint-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('resumes from the document store checkpoint of an older version, then keeps its checkpoint in the feed only', async () => {
    const events = openSqliteEventStore({ path: ':memory:', pollIntervalMs: 20 });
    const documents = openSqliteDocumentStore({ path: ':memory:' });
    const feed = SqliteEventFeed.open(join(dir, 'feed.db'), { maxAgeHours: 1 });
    const seen: string[] = [];
    const reactor: Reactor = {
      name: 'test.integration-events.v1',
      streamPrefixes: ['thing-'],
      checkpointInFeed: true,
      async react(batch: readonly RecordedEvent[]) {
        for (const event of batch) {
          await feed.append({ type: 'thing.happened', event_id: event.id, workspace_id: 'ws' });
          seen.push(event.id);
        }
      },
    };
    const first = await events.append('thing-1', [{ id: randomUUID(), type: 'Happened', data: {}, metadata: {} }], 'any');
    // Published by the older version, whose checkpoint is in the document store.
    await documents.write([], { name: reactor.name, value: positionToString(first.position) });
    const second = { id: randomUUID(), type: 'Happened', data: {}, metadata: {} };
    await events.append('thing-2', [second], 'any');

    const runner = new ProjectionRunner(reactor, events, documents, () => undefined, null, undefined, undefined, feed);
    await runner.start();
    try {
      await eventually(() => seen.length === 1);
      expect(seen).toEqual([second.id]);
      await eventually(() => runner.state === 'live');
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await feed.getCheckpoint(reactor.name)).toBe(positionToString(runner.checkpoint));
      // The document store keeps the older version's checkpoint: nothing writes it any more.
      expect(await documents.getCheckpoint(reactor.name)).toBe(positionToString(first.position));
    } finally {
      await runner.stop();
      await feed.close();
      await events.close();
      await documents.close();
    }
  });
});
