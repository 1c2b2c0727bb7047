import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventFeedContract, feedEvent, take } from '@lore/platform/transport/contract';
import { SqliteEventFeed } from './sqlite-event-feed';

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
});
