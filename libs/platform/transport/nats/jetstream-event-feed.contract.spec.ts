import { randomBytes } from 'node:crypto';
import { connect } from 'nats';
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
});
