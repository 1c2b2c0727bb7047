import { randomUUID } from 'node:crypto';
import type { EventFeed, FeedEntry, FollowOptions, IntegrationEvent } from '@lore/platform/transport/port';

/** A fresh, empty feed and the way its deployment fills it (`publishIntegrationEvent` on its transport). */
export interface EventFeedFixture {
  readonly feed: EventFeed;
  publish(event: IntegrationEvent): Promise<void>;
  cleanup(): Promise<void>;
}

export type EventFeedFactory = () => Promise<EventFeedFixture>;

export const feedEvent = (type: string, workspaceId: string, more: Record<string, unknown> = {}): IntegrationEvent => ({
  type,
  event_id: randomUUID(),
  workspace_id: workspaceId,
  occurred_at: new Date().toISOString(),
  ...more,
});

/** Reads until `count` entries arrived (then stops following) or the deadline passes. */
export async function take(feed: EventFeed, options: Omit<FollowOptions, 'signal'>, count: number, timeoutMs = 5_000): Promise<FeedEntry[]> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const entries: FeedEntry[] = [];
  try {
    for await (const page of feed.follow({ ...options, signal: controller.signal })) {
      expect(page.length).toBeGreaterThan(0);
      entries.push(...page);
      if (entries.length >= count) break;
    }
  } finally {
    clearTimeout(timer);
    controller.abort();
  }
  return entries;
}

/** The behaviour every EventFeed adapter must show: order, resumption, selection, live tail, de-duplication. */
export function describeEventFeedContract(name: string, factory: EventFeedFactory): void {
  describe(`${name} event feed contract`, () => {
    let fixture: EventFeedFixture;
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('gives a workspace its events in publish order with increasing positions, and no other workspace\'s', async () => {
      const mine = [feedEvent('memory.created', 'acme'), feedEvent('memory.deleted', 'acme'), feedEvent('api_key.created', 'acme')];
      await fixture.publish(mine[0]!);
      await fixture.publish(feedEvent('memory.created', 'globex'));
      await fixture.publish(mine[1]!);
      await fixture.publish(mine[2]!);

      const entries = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme' } }, 3);
      expect(entries.map((e) => e.event)).toEqual(mine);
      expect(entries.map((e) => e.position)).toEqual([...entries.map((e) => e.position)].sort((a, b) => a - b));
      expect(new Set(entries.map((e) => e.position)).size).toBe(3);
      const bounds = await fixture.feed.bounds();
      expect(bounds.last).toBe(entries[2]!.position);
      expect(bounds.first).toBeLessThanOrEqual(entries[0]!.position);
    });

    it('gives each event\'s JSON as it was published (what the HTTP stream sends as it is), one line', async () => {
      const event = feedEvent('memory.created', 'acme', { text: 'line one\nline two "quoted" \u2028 é', nested: { list: [1, 2.5, null, true] } });
      await fixture.publish(event);
      const [entry] = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme' } }, 1);
      expect(entry?.stored).toBe(JSON.stringify(event));
      expect(entry?.stored).not.toContain('\n');
      expect(entry?.event).toEqual(event);
    });

    it('gives every workspace\'s events to a reader without a workspace', async () => {
      const events = [feedEvent('memory.created', 'acme'), feedEvent('memory.created', 'globex')];
      for (const event of events) await fixture.publish(event);
      const entries = await take(fixture.feed, { after: 0, selector: { workspaceId: null } }, 2);
      expect(entries.map((e) => e.event)).toEqual(events);
    });

    it('resumes after a position without repeating or skipping', async () => {
      const events = Array.from({ length: 5 }, () => feedEvent('memory.created', 'acme'));
      for (const event of events) await fixture.publish(event);
      const all = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme' } }, 5);
      const rest = await take(fixture.feed, { after: all[1]!.position, selector: { workspaceId: 'acme' } }, 3);
      expect(rest.map((e) => e.event.event_id)).toEqual(events.slice(2).map((e) => e.event_id));
    });

    it('narrows to contexts and types, either matching', async () => {
      const created = feedEvent('memory.created', 'acme');
      const revoked = feedEvent('api_key.revoked', 'acme');
      const deleted = feedEvent('memory.deleted', 'acme');
      const message = feedEvent('message.created', 'acme');
      for (const event of [created, revoked, deleted, message]) await fixture.publish(event);
      const byType = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme', types: ['memory.deleted'] } }, 1);
      expect(byType.map((e) => e.event.event_id)).toEqual([deleted.event_id]);
      const byContext = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme', contexts: ['memory'] } }, 2);
      expect(byContext.map((e) => e.event.event_id)).toEqual([created.event_id, deleted.event_id]);
      const either = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme', contexts: ['api_key'], types: ['message.created'] } }, 2);
      expect(either.map((e) => e.event.event_id)).toEqual([revoked.event_id, message.event_id]);
    });

    it('delivers events published while following, in order', async () => {
      const events = Array.from({ length: 20 }, () => feedEvent('memory.created', 'acme'));
      const reading = take(fixture.feed, { after: 0, selector: { workspaceId: 'acme' } }, 20);
      await new Promise((resolve) => setTimeout(resolve, 50));
      for (const event of events) await fixture.publish(event);
      expect((await reading).map((e) => e.event.event_id)).toEqual(events.map((e) => e.event_id));
    });

    it('stores an event id once when it is published again', async () => {
      const event = feedEvent('memory.created', 'acme');
      await fixture.publish(event);
      await fixture.publish(event);
      const marker = feedEvent('memory.deleted', 'acme');
      await fixture.publish(marker);
      const entries = await take(fixture.feed, { after: 0, selector: { workspaceId: 'acme' } }, 3, 1_000);
      expect(entries.map((e) => e.event.event_id)).toEqual([event.event_id, marker.event_id]);
    });

    it('ends the iteration when the signal aborts while waiting for new events', async () => {
      const controller = new AbortController();
      const reading = (async () => {
        const seen: FeedEntry[] = [];
        for await (const page of fixture.feed.follow({ after: 0, selector: { workspaceId: 'acme' }, signal: controller.signal })) seen.push(...page);
        return seen;
      })();
      await new Promise((resolve) => setTimeout(resolve, 50));
      controller.abort();
      await expect(reading).resolves.toEqual([]);
    });

    it('pages through a backlog larger than one batch for a slow reader', async () => {
      const events = Array.from({ length: 1_200 }, (_, i) => feedEvent('memory.created', 'acme', { n: i }));
      await Promise.all(events.map((event) => fixture.publish(event)));
      const controller = new AbortController();
      let count = 0;
      let previous = 0;
      for await (const page of fixture.feed.follow({ after: 0, selector: { workspaceId: 'acme' }, signal: controller.signal })) {
        for (const entry of page) {
          expect(entry.position).toBeGreaterThan(previous);
          previous = entry.position;
        }
        count += page.length;
        await new Promise((resolve) => setTimeout(resolve, 20));
        if (count >= events.length) break;
      }
      controller.abort();
      expect(count).toBe(events.length);
    });
  });
}
