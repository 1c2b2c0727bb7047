import { randomBytes } from 'node:crypto';
import { AckPolicy, DeliverPolicy, StorageType, connect, nanos, type JetStreamManager, type NatsConnection } from 'nats';
import { describeWithServer } from '@lore/platform/testing';
import { pullPages, streamSequence } from './pull-pages';

describe('streamSequence', () => {
  it('reads the stream sequence of both forms of a JetStream ack subject, and nothing from other subjects', () => {
    expect(streamSequence('$JS.ACK.S.C.1.4021.17.1700000000000000000.3')).toBe(4021);
    expect(streamSequence('$JS.ACK.S.C.1.4021.17.1700000000000000000.3', '$JS.ACK.S.C.')).toBe(4021);
    expect(streamSequence('$JS.ACK.hub.ACCHASH.S.C.1.4021.17.1700000000000000000.3.r4nd', '$JS.ACK.S.C.')).toBe(4021);
    expect(streamSequence('$JS.ACK.hub.ACCHASH.S.C.1.4021.17.1700000000000000000.3.r4nd')).toBe(4021);
    expect(streamSequence('_INBOX.abc')).toBeNaN();
    expect(streamSequence('$JS.ACK.S.C.1')).toBeNaN();
    expect(streamSequence('')).toBeNaN();
  });
});

describeWithServer('NATS_URL', 'pullPages', (url) => {
  let nc: NatsConnection;
  let jsm: JetStreamManager;
  let stream: string;
  const subject = (): string => `${stream.toLowerCase()}.items`;

  beforeEach(async () => {
    nc = await connect({ servers: url });
    jsm = await nc.jetstreamManager();
    stream = `LPULL${randomBytes(4).toString('hex').toUpperCase()}`;
    await jsm.streams.add({ name: stream, subjects: [`${stream.toLowerCase()}.>`], storage: StorageType.Memory });
  });
  afterEach(async () => {
    await jsm.streams.delete(stream).catch(() => undefined);
    await nc.close();
  });

  const store = async (count: number): Promise<void> => {
    const js = nc.jetstream();
    for (let i = 0; i < count; i += 500) await Promise.all(Array.from({ length: Math.min(500, count - i) }, (_, k) => js.publish(subject(), new TextEncoder().encode(String(i + k)))));
  };
  const consumer = async (): Promise<string> =>
    (await jsm.consumers.add(stream, { ack_policy: AckPolicy.None, deliver_policy: DeliverPolicy.All, mem_storage: true, inactive_threshold: nanos(60_000) })).name;
  const text = (data: Uint8Array): string => new TextDecoder().decode(data);

  it('gives a backlog in pages, in order, once each; pulls nothing more while the reader does not come back', async () => {
    await store(3_000);
    const controller = new AbortController();
    let received = 0;
    const pages = pullPages({
      nc,
      stream,
      consumer: await consumer(),
      batch: 200,
      signal: controller.signal,
      take: (message, sequence) => {
        received++;
        return { sequence, n: Number(text(message.data)) };
      },
    });
    const seen: number[] = [];
    const first = await pages.next();
    if (first.done === true) throw new Error('no page');
    seen.push(...first.value.map((item) => item.n));
    // The reader keeps its page and does not ask for the next: the pulls stop at one batch.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(received).toBeLessThanOrEqual(first.value.length + 200);
    let sizes = [first.value.length];
    for await (const page of pages) {
      seen.push(...page.map((item) => item.n));
      sizes = [...sizes, page.length];
      if (seen.length >= 3_000) break;
    }
    controller.abort();
    expect(seen).toEqual(Array.from({ length: 3_000 }, (_, i) => i));
    // Many messages a step, not one.
    expect(sizes.length).toBeLessThan(3_000 / 10);
  });

  it('gives the stream sequence of each message', async () => {
    await store(3);
    const controller = new AbortController();
    const sequences: number[] = [];
    for await (const page of pullPages({ nc, stream, consumer: await consumer(), batch: 10, signal: controller.signal, take: (_message, sequence) => sequence })) {
      sequences.push(...page);
      if (sequences.length >= 3) break;
    }
    controller.abort();
    expect(sequences).toEqual([1, 2, 3]);
  });

  it('pulls on past messages the reader drops, without the reader coming back', async () => {
    await store(1_000);
    const controller = new AbortController();
    const kept: number[] = [];
    // Only the last message is kept: every pull but the last brings nothing to the reader.
    for await (const page of pullPages({ nc, stream, consumer: await consumer(), batch: 50, signal: controller.signal, take: (message) => (text(message.data) === '999' ? 999 : undefined) })) {
      kept.push(...page);
      break;
    }
    controller.abort();
    expect(kept).toEqual([999]);
  });

  it('delivers what arrives while it waits, and ends when the signal aborts', async () => {
    const controller = new AbortController();
    const reading = (async () => {
      const seen: string[] = [];
      for await (const page of pullPages({ nc, stream, consumer: await consumer(), batch: 10, signal: controller.signal, take: (message) => text(message.data) })) seen.push(...page);
      return seen;
    })();
    await new Promise((resolve) => setTimeout(resolve, 200));
    await store(3);
    await new Promise((resolve) => setTimeout(resolve, 200));
    controller.abort();
    await expect(reading).resolves.toEqual(['0', '1', '2']);
  });

  it('fails at a message it cannot take, after what came before and with nothing after it', async () => {
    await store(10);
    const controller = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      const take = (message: { data: Uint8Array }): number => {
        const n = Number(text(message.data));
        if (n === 5) throw new Error('cannot take 5');
        return n;
      };
      for await (const page of pullPages({ nc, stream, consumer: await consumer(), batch: 100, signal: controller.signal, take })) seen.push(...page);
    })();
    await expect(reading).rejects.toThrow('cannot take 5');
    controller.abort();
    expect(seen).toEqual([0, 1, 2, 3, 4]);
  });

  it('fails, instead of waiting for ever, when its consumer is deleted', async () => {
    const name = await consumer();
    const controller = new AbortController();
    // Settled into a value at once: the failure can arrive before the deletion's own reply does,
    // and a rejection nobody handles yet fails the run (seen on Node 24 on a loaded machine).
    const reading = (async () => {
      for await (const page of pullPages({ nc, stream, consumer: name, batch: 10, signal: controller.signal, take: () => 1, heartbeatMs: 500 })) void page;
    })().then(
      () => null,
      (error: unknown) => error,
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    await jsm.consumers.delete(stream, name);
    expect(String(await reading)).toMatch(/JetStream pull/);
    controller.abort();
  }, 15_000);
});
