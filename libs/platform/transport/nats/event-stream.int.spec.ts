import { randomBytes } from 'node:crypto';
import { AckPolicy, RetentionPolicy, StorageType, connect, nanos, type JetStreamManager, type NatsConnection } from 'nats';
import { describeWithServer } from '@lore/platform/testing';
import { integrationEventSubject, workspaceToken, type IntegrationEventEnvelope, type Transport } from '@lore/platform/transport/port';
import { EVENTS_DUPLICATE_WINDOW_MS, eventStreamName } from './event-stream';
import { connectNatsTransport } from './nats-transport.adapter';

interface TestEvent extends IntegrationEventEnvelope {
  readonly n: number;
}

/** Integration events kept in JetStream for downstream consumers (issue 9). */
describeWithServer('NATS_URL', 'NATS integration-event stream', (url) => {
  let admin: NatsConnection;
  let jsm: JetStreamManager;
  let prefix: string;
  let stream: string;
  const open: Transport[] = [];

  beforeAll(async () => {
    admin = await connect({ servers: url, name: 'lore-event-stream-admin' });
    jsm = await admin.jetstreamManager();
  });
  afterAll(() => admin.close());

  beforeEach(() => {
    // A stream of its own per test: parallel runs and leftovers never meet.
    prefix = `ljs${randomBytes(5).toString('hex')}`;
    stream = eventStreamName(prefix);
  });
  afterEach(async () => {
    await Promise.all(open.splice(0).map((t) => t.close()));
    await jsm.streams.delete(stream).catch(() => undefined);
  });

  const lore = async (maxAgeHours?: number): Promise<Transport> => {
    const transport = await connectNatsTransport({ url, name: 'lore-event-stream', eventStream: { subjectPrefix: prefix, ...(maxAgeHours === undefined ? {} : { maxAgeHours }) } });
    open.push(transport);
    return transport;
  };
  // What the runtime's prefixing wrapper and publishIntegrationEvent do together.
  const publish = (transport: Transport, event: TestEvent): Promise<void> =>
    transport.publish(`${prefix}.${integrationEventSubject(event)}`, event, { messageId: event.event_id });

  it('creates the stream at start with its settings, and updates it when one changes', async () => {
    await lore(2);
    const created = (await jsm.streams.info(stream)).config;
    expect(created).toMatchObject({
      subjects: [`${prefix}.events.>`],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      max_age: nanos(2 * 3_600_000),
      duplicate_window: nanos(EVENTS_DUPLICATE_WINDOW_MS),
    });

    await lore(); // another process of the deployment, default max age: 7 days
    expect((await jsm.streams.info(stream)).config.max_age).toBe(nanos(7 * 24 * 3_600_000));

    // Changed by hand: ours is restored, an operator's extra limit is kept.
    await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, duplicate_window: nanos(10_000), max_msgs: 50_000 });
    await lore();
    expect((await jsm.streams.info(stream)).config).toMatchObject({ duplicate_window: nanos(EVENTS_DUPLICATE_WINDOW_MS), max_msgs: 50_000 });
  });

  it('refuses to take over a stream of that name holding other subjects', async () => {
    await jsm.streams.add({ name: stream, subjects: [`${prefix}x.events.>`] });
    await expect(lore()).rejects.toThrow(/another deployment/);
  });

  it('puts the workspace in the last token, so a consumer can take one workspace', async () => {
    const transport = await lore();
    const core: unknown[] = [];
    // A core subscriber (what a stock Nest @EventPattern is) still gets stored events.
    await transport.subscribe(`${prefix}.events.memory.created.*`, async (payload) => {
      core.push(payload);
    });
    const acme = workspaceToken('acme.prod eu');
    await jsm.consumers.add(stream, { durable_name: 'acme', ack_policy: AckPolicy.Explicit, filter_subject: `${prefix}.events.*.*.${acme}` });
    const workspaces = ['acme.prod eu', 'other', 'acme', ''];
    for (const [n, workspace_id] of workspaces.entries()) await publish(transport, { type: 'memory.created', event_id: `e${n}`, workspace_id, n });

    expect(acme).toBe('acme%2Eprod%20eu');
    const consumer = await admin.jetstream().consumers.get(stream, 'acme');
    const got: TestEvent[] = [];
    for await (const m of await consumer.fetch({ max_messages: 10, expires: 1_000 })) {
      expect(m.subject).toBe(`${prefix}.events.memory.created.${acme}`);
      got.push(decode(m.string()));
      m.ack();
    }
    expect(got.map((e) => e.event_id)).toEqual(['e0']);
    for (let i = 0; i < 50 && core.length < 4; i++) await sleep(20);
    expect(core).toHaveLength(4);
  });

  it('keeps and filters an event of the longest workspace id the API takes (255 three-byte characters: a 2,295-character token)', async () => {
    // Issue 16: no identifier from user input may exceed a store's limit. The token is the one
    // such identifier in a subject; NATS bounds a protocol line (4,096 bytes), not a token.
    const transport = await lore();
    const workspace = '€'.repeat(255);
    const token = workspaceToken(workspace);
    expect(token).toHaveLength(2_295);
    await jsm.consumers.add(stream, { durable_name: 'long', ack_policy: AckPolicy.Explicit, filter_subject: `${prefix}.events.*.*.${token}` });
    await publish(transport, { type: 'memory.created', event_id: 'long-1', workspace_id: workspace, n: 1 });
    await publish(transport, { type: 'memory.created', event_id: 'other-1', workspace_id: 'other', n: 2 });
    const got: TestEvent[] = [];
    for await (const m of await (await admin.jetstream().consumers.get(stream, 'long')).fetch({ max_messages: 10, expires: 1_000 })) {
      got.push(decode(m.string()));
      m.ack();
    }
    expect(got.map((e) => [e.event_id, e.workspace_id])).toEqual([['long-1', workspace]]);
  });

  it('delivers 2,000 events exactly once to a durable consumer stopped midway, and stores a republish once', async () => {
    const transport = await lore();
    await jsm.consumers.add(stream, { durable_name: 'downstream', ack_policy: AckPolicy.Explicit, ack_wait: nanos(1_000), filter_subject: `${prefix}.events.>` });
    const events: TestEvent[] = Array.from({ length: 2_000 }, (_, n) => ({ type: n % 2 ? 'memory.created' : 'connection.deleted', event_id: `ev-${n}`, workspace_id: `ws-${n % 3}`, n }));
    // Each publish waits for JetStream's ack, as the reactor's does.
    const publishing = (async () => {
      for (const event of events) await publish(transport, event);
    })();

    const processed = new Map<string, number>();
    await consume('downstream', processed, () => processed.size >= 1_000); // then its connection is gone
    expect(processed.size).toBeLessThan(2_000);
    await consume('downstream', processed, () => processed.size >= 2_000); // restarted from durable state
    await publishing;
    // Longer than ack_wait: anything unacknowledged or doubled would come back now.
    await consume('downstream', processed, () => false, 2_500);

    expect([...processed.keys()].sort()).toEqual(events.map((e) => e.event_id).sort());
    expect([...processed.values()].every((count) => count === 1)).toBe(true);
    const consumerState = await jsm.consumers.info(stream, 'downstream');
    expect([consumerState.num_pending, consumerState.num_ack_pending]).toEqual([0, 0]);

    for (const event of events) await publish(transport, event); // same Nats-Msg-Id: a reactor's retry
    expect((await jsm.streams.info(stream)).state.messages).toBe(2_000);
  }, 60_000);

  it('recreates a stream deleted under it, and rejects a publish JetStream does not acknowledge', async () => {
    const transport = await lore();
    await jsm.streams.delete(stream);
    await publish(transport, { type: 'memory.deleted', event_id: 'after-reset', workspace_id: 'w', n: 0 });
    expect((await jsm.streams.info(stream)).state.messages).toBe(1);

    await jsm.streams.update(stream, { ...(await jsm.streams.info(stream)).config, max_msg_size: 16 });
    await expect(publish(transport, { type: 'memory.deleted', event_id: 'too-big', workspace_id: 'w', n: 1 })).rejects.toMatchObject({ code: 'unavailable' });
  });

  /** A downstream consumer: acks each event (waiting for the server to confirm) and counts it. */
  async function consume(durable: string, processed: Map<string, number>, done: () => boolean, idleMs?: number): Promise<void> {
    const nc = await connect({ servers: url, name: 'lore-event-stream-consumer' });
    try {
      const consumer = await nc.jetstream().consumers.get(stream, durable);
      const deadline = Date.now() + (idleMs ?? 30_000);
      while (!done() && Date.now() < deadline) {
        for await (const m of await consumer.fetch({ max_messages: 64, expires: 1_000 })) {
          const id = decode(m.string()).event_id;
          if (await m.ackAck()) processed.set(id, (processed.get(id) ?? 0) + 1);
          // Leaves the rest of the batch delivered but unacknowledged, as a crash would.
          if (done()) break;
        }
      }
    } finally {
      await nc.close();
    }
  }
});

/** Stored messages are the Nest event envelope `{ pattern, data }`, like every Lore event. */
function decode(text: string): TestEvent {
  return (JSON.parse(text) as { data: TestEvent }).data;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
