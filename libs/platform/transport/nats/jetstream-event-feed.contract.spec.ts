import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
import { feedEvent, take } from '@lore/platform/transport/contract';
import { describeWithServer } from '@lore/platform/testing';
import { describeEventFeedContract } from '@lore/platform/transport/contract';
import { integrationEventSubject } from '@lore/platform/transport/port';
import { eventStreamName } from './event-stream';
import { jetStreamEventFeed } from './jetstream-event-feed';
import { connectNatsTransport } from './nats-transport.adapter';

describeWithServer('NATS_URL', 'JetStream event feed', (url) => {
  describeEventFeedContract('JetStream', async () => {
    // A stream of its own per test: the fixture's feed starts empty.
    const prefix = `lfeed${randomBytes(5).toString('hex')}`;
    const transport = await connectNatsTransport({ url, name: 'lore-feed-contract', eventStream: { subjectPrefix: prefix } });
    const feed = jetStreamEventFeed({ url, subjectPrefix: prefix, name: 'lore-feed-contract-reader' });
    return {
      feed,
      publish: (event) => transport.publish(`${prefix}.${integrationEventSubject(event)}`, event, { messageId: event.event_id }),
      async cleanup() {
        await feed.close();
        await transport.close();
        const admin = await connect({ servers: url });
        await (await admin.jetstreamManager()).streams.delete(eventStreamName(prefix)).catch(() => undefined);
        await admin.close();
      },
    };
  });

  it('reads an event stored in another shape of the wire format (a stock Nest client\'s emit) by decoding it', async () => {
    const prefix = `lfeed${randomBytes(5).toString('hex')}`;
    const transport = await connectNatsTransport({ url, name: 'lore-feed-shape', eventStream: { subjectPrefix: prefix } });
    const feed = jetStreamEventFeed({ url, subjectPrefix: prefix, name: 'lore-feed-shape-reader' });
    const admin = await connect({ servers: url });
    try {
      const [first, second] = [feedEvent('memory.created', 'acme'), feedEvent('memory.deleted', 'acme')];
      const subject = (event: typeof first): string => `${prefix}.${integrationEventSubject(event)}`;
      // `data` before `pattern`, an `id` after: not the transport's own layout, the same event.
      const foreign = JSON.stringify({ data: first, pattern: subject(first), id: 'nest-1' });
      await admin.jetstream().publish(subject(first), new TextEncoder().encode(foreign));
      await transport.publish(subject(second), second, { messageId: second.event_id });
      const entries = await take(feed, { after: 0, selector: { workspaceId: 'acme' } }, 2);
      expect(entries.map((e) => e.stored)).toEqual([JSON.stringify(first), JSON.stringify(second)]);
    } finally {
      await feed.close();
      await transport.close();
      await (await admin.jetstreamManager()).streams.delete(eventStreamName(prefix)).catch(() => undefined);
      await admin.close();
    }
  });
});
