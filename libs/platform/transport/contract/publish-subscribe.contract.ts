import { publishIntegrationEvent, workspaceToken, type MessageContext, type Transport } from '@lore/platform/transport/port';
import { Inbox, uniqueSubject, type TransportFactory, type TransportFixture } from './contract-fixture';

interface Delivery {
  readonly payload: unknown;
  readonly context: MessageContext;
}

export function describePublishSubscribeContract(factory: TransportFactory): void {
  describe('publish/subscribe', () => {
    let fixture: TransportFixture;
    let transport: Transport;

    beforeEach(async () => {
      fixture = await factory();
      transport = fixture.transport;
    });

    afterEach(async () => {
      await fixture.cleanup();
    });

    const collect = async (pattern: string): Promise<Inbox<Delivery>> => {
      const inbox = new Inbox<Delivery>();
      await transport.subscribe(pattern, async (payload, context) => {
        inbox.push({ payload, context });
      });
      return inbox;
    };

    it('delivers to exact, `*` and `>` subscribers, with subject and request id', async () => {
      const prefix = uniqueSubject('events');
      const subject = `${prefix}.memory.created`;
      const exact = await collect(subject);
      const oneToken = await collect(`${prefix}.*.created`);
      const tail = await collect(`${prefix}.>`);

      await transport.publish(subject, { id: 'm1', tags: ['a'] }, { requestId: 'req-7' });

      for (const inbox of [exact, oneToken, tail]) {
        const [delivery] = await inbox.waitFor(1);
        expect(delivery).toEqual({ payload: { id: 'm1', tags: ['a'] }, context: { subject, requestId: 'req-7' } });
      }
    });

    it('does not deliver to subscribers whose pattern does not match', async () => {
      const prefix = uniqueSubject('events');
      const oneToken = await collect(`${prefix}.*`);
      const other = await collect(`${prefix}.memory.deleted`);
      const tail = await collect(`${prefix}.memory.>`);

      await transport.publish(`${prefix}.memory.created`, 1);
      await transport.publish(`${prefix}.memory`, 2);
      // Delivery is ordered per subscriber: once the marker arrives, anything earlier would have.
      await transport.publish(`${prefix}.memory.deleted`, 'marker');

      await tail.waitFor(2);
      expect((await oneToken.waitFor(1)).map((d) => d.payload)).toEqual([2]);
      expect((await other.waitFor(1)).map((d) => d.payload)).toEqual(['marker']);
      expect(tail.items.map((d) => d.payload)).toEqual([1, 'marker']);
      expect(tail.items[0]?.context.requestId).toBeUndefined();
    });

    it('delivers events to one subscriber in publish order', async () => {
      const subject = uniqueSubject('ordered');
      const inbox = await collect(subject);

      for (let i = 0; i < 50; i++) await transport.publish(subject, i);

      const deliveries = await inbox.waitFor(50);
      expect(deliveries.map((d) => d.payload)).toEqual(Array.from({ length: 50 }, (_, i) => i));
    });

    it('keeps a failing subscriber away from the publisher and from other subscribers', async () => {
      const subject = uniqueSubject('failing');
      const survived = new Inbox<unknown>();
      await transport.subscribe(subject, async (payload) => {
        if (payload === 'boom') throw new Error('subscriber bug');
        survived.push(payload);
      });
      const healthy = await collect(subject);

      await expect(transport.publish(subject, 'boom')).resolves.toBeUndefined();
      await expect(transport.publish(subject, 'after')).resolves.toBeUndefined();

      expect(await survived.waitFor(1)).toEqual(['after']);
      expect((await healthy.waitFor(2)).map((d) => d.payload)).toEqual(['boom', 'after']);
    });

    it('gives every subscriber its own copy, untouched by the publisher', async () => {
      const subject = uniqueSubject('copies');
      const first = new Inbox<{ list: number[] }>();
      await transport.subscribe(subject, async (payload) => {
        const event = payload as { list: number[] };
        event.list.push(99);
        first.push(event);
      });
      const second = await collect(subject);
      const sent = { list: [1] };

      await transport.publish(subject, sent);
      sent.list.push(2);

      await first.waitFor(1);
      const [delivery] = await second.waitFor(1);
      expect(delivery?.payload).toEqual({ list: [1] });
      expect(first.items[0]).toEqual({ list: [1, 99] });
      expect(sent).toEqual({ list: [1, 2] });
    });

    it('publishes an integration event on events.<context>.<type>.<workspace token>, one workspace per last token', async () => {
      // A unique workspace keeps runs sharing a server apart (these subjects have no test prefix).
      const workspace = `${uniqueSubject('ws')} #1`;
      const token = workspaceToken(workspace);
      const mine = await collect(`events.*.*.${token}`);
      const created = await collect(`events.memory.created.${token}`);
      const event = { type: 'memory.created', event_id: 'ev-1', workspace_id: workspace };

      await publishIntegrationEvent(transport, event);
      await publishIntegrationEvent(transport, { ...event, type: 'memory.deleted', event_id: 'ev-2' });

      expect((await mine.waitFor(2)).map((d) => d.context.subject)).toEqual([`events.memory.created.${token}`, `events.memory.deleted.${token}`]);
      expect((await created.waitFor(1))[0]?.payload).toEqual(event);
    });

    it('stops delivering once the subscription is closed', async () => {
      const subject = uniqueSubject('unsubscribed');
      const kept = await collect(subject);
      const dropped = new Inbox<unknown>();
      const subscription = await transport.subscribe(subject, async (payload) => {
        dropped.push(payload);
      });

      await transport.publish(subject, 'before');
      await dropped.waitFor(1);
      await subscription.close();
      await transport.publish(subject, 'after');

      await kept.waitFor(2);
      expect(dropped.items).toEqual(['before']);
    });
  });
}
