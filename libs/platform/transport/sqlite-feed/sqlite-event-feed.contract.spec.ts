import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventFeedContract, feedEvent, take } from '@lore/platform/transport/contract';
import { SqliteEventFeed, UNCLEAN_STOP_POSITION_GAP } from './sqlite-event-feed';

describeEventFeedContract('SQLite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-feed-'));
  const feed = SqliteEventFeed.open(join(dir, 'integration-events.db'), { maxAgeHours: 24 });
  return {
    feed,
    publish: (event) => feed.append(event),
    async cleanup() {
      await feed.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite event feed', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-feed-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps positions across a reopen, and never reuses one after old events expire', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const path = join(dir, 'feed.db');
    const first = SqliteEventFeed.open(path, { maxAgeHours: 1, now: () => now });
    await first.append(feedEvent('memory.created', 'acme'));
    await first.append(feedEvent('memory.created', 'acme'));
    await first.close();

    now += 2 * 3_600_000; // both are now older than an hour: the reopen expires them
    const second = SqliteEventFeed.open(path, { maxAgeHours: 1, now: () => now });
    expect(await second.bounds()).toEqual({ first: 3, last: 2 });
    const later = feedEvent('memory.deleted', 'acme');
    await second.append(later);
    const entries = await take(second, { after: 0, selector: { workspaceId: 'acme' } }, 1);
    expect(entries.map((e) => ({ position: e.position, event: e.event }))).toEqual([{ position: 3, event: later }]);
    await second.close();
  });

  it('after an unclean stop gives positions past any a lost tail could have held; a clean stop does not', async () => {
    const path = join(dir, 'feed.db');
    const crashed = SqliteEventFeed.open(path, { maxAgeHours: 1 });
    await crashed.append(feedEvent('memory.created', 'acme'));
    // Opened again while still marked open: what a start after a crash finds.
    const restarted = SqliteEventFeed.open(path, { maxAgeHours: 1 });
    expect(await restarted.bounds()).toEqual({ first: 1, last: 1 });
    const later = feedEvent('memory.deleted', 'acme');
    await restarted.append(later);
    const entries = await take(restarted, { after: 1, selector: { workspaceId: 'acme' } }, 1);
    expect(entries.map((e) => ({ position: e.position, event: e.event }))).toEqual([{ position: 2 + UNCLEAN_STOP_POSITION_GAP, event: later }]);
    await restarted.close();
    await crashed.close();

    const clean = SqliteEventFeed.open(path, { maxAgeHours: 1 });
    await clean.append(feedEvent('memory.created', 'acme'));
    expect((await clean.bounds()).last).toBe(3 + UNCLEAN_STOP_POSITION_GAP);
    await clean.close();
  });

  it('keeps the publishers\' checkpoints across a reopen', async () => {
    const path = join(dir, 'feed.db');
    const feed = SqliteEventFeed.open(path, { maxAgeHours: 1 });
    await feed.saveCheckpoint('memory.integration-events.v1', '41');
    await feed.saveCheckpoint('memory.integration-events.v1', '42');
    await feed.saveCheckpoint('keys.integration-events.v1', '7');
    await feed.deleteCheckpoint('keys.integration-events.v1');
    await feed.close();
    const reopened = SqliteEventFeed.open(path, { maxAgeHours: 1 });
    expect(await reopened.getCheckpoint('memory.integration-events.v1')).toBe('42');
    expect(await reopened.getCheckpoint('keys.integration-events.v1')).toBeNull();
    await reopened.close();
  });
});
