import { describeWithServer } from '@lore/platform/testing';
import { describeTransportContract } from '@lore/platform/transport/contract';
import { connect, headers, type Msg } from 'nats';
import { connectNatsTransport } from './nats-transport.adapter';
import { ACCEPT_PARTS_HEADER, MAX_PARTED_REPLY_BYTES, PART_ACK_HEADER, PART_HEADER, WINDOW_BYTES } from './reply-parts';

describeWithServer('NATS_URL', 'NATS transport', (url) => {
  describeTransportContract('NATS', async () => {
    const transport = await connectNatsTransport({ url, name: 'lore-transport-contract' });
    return { transport, cleanup: () => transport.close() };
  });

  it('reports subscriber failures to onError and keeps delivering', async () => {
    const errors: unknown[] = [];
    const transport = await connectNatsTransport({ url, onError: (error) => errors.push(error) });
    const subject = `lore-contract.on-error.${process.pid}.${Date.now()}`;
    const received: unknown[] = [];
    await transport.subscribe(subject, async (payload) => {
      if (payload === 'boom') throw new Error('subscriber bug');
      received.push(payload);
    });

    await transport.publish(subject, 'boom');
    await transport.publish(subject, 'after');
    // Draining delivers what the server already sent before the subscription ends.
    await transport.close();

    expect(errors).toEqual([new Error('subscriber bug')]);
    expect(received).toEqual(['after']);
  });

  it('refuses a request over the server\'s max_payload with a 413-coded error, sends a larger reply in parts, and keeps serving', async () => {
    const transport = await connectNatsTransport({ url, name: 'lore-payload-limit' });
    try {
      const subject = `lore-contract.payload.${process.pid}.${Date.now()}`;
      // Over the default 1 MiB, with multi-byte characters so that parts split inside them.
      const big = 'xé€😀'.repeat(300_000);
      await transport.serve(subject, async (payload) => (payload === 'big reply' ? { big } : payload === 'huge reply' ? 'h'.repeat(MAX_PARTED_REPLY_BYTES) : 'ok'));
      await expect(transport.request(subject, big)).rejects.toMatchObject({ code: 'too_large' });
      await expect(transport.request(subject, 'big reply')).resolves.toEqual({ big });
      await expect(transport.request(subject, 'huge reply')).rejects.toMatchObject({ code: 'too_large', message: expect.stringContaining('may take') });
      await expect(transport.request(subject, 'small')).resolves.toBe('ok');

      // A stock @nestjs/microservices client does not ask for parts: it gets the 413 packet, as before.
      const stock = await connect({ servers: url });
      try {
        const reply = await stock.request(subject, new TextEncoder().encode(JSON.stringify({ pattern: subject, data: 'big reply', id: 'stock-1' })), { timeout: 10_000 });
        expect(JSON.parse(new TextDecoder().decode(reply.data))).toMatchObject({ id: 'stock-1', isDisposed: true, err: { code: 'too_large' } });
      } finally {
        await stock.close();
      }
    } finally {
      await transport.close();
    }
  });

  it('paces a reply in parts by the requester\'s acknowledgements, a window ahead and no more, so nothing piles up in the NATS server', async () => {
    const transport = await connectNatsTransport({ url, name: 'lore-paced-parts' });
    const raw = await connect({ servers: url });
    try {
      const subject = `lore-contract.paced.${process.pid}.${Date.now()}`;
      // Over the first version's 16 MiB cap: 20 MB in ~20 parts.
      const big = 'p'.repeat(20 * 1024 * 1024);
      await transport.serve(subject, async () => big);
      await expect(transport.request(subject, 'all of it')).resolves.toBe(big);
      // Parts of max_payload less the room kept for headers; WINDOW_BYTES of them in flight.
      const PART_WINDOW = Math.floor(WINDOW_BYTES / ((raw.info?.max_payload ?? 1024 * 1024) - 1024));

      // A requester that takes parts and acknowledges none gets the window and then waits.
      const inbox = `_INBOX.paced.${Date.now()}`;
      const received: Msg[] = [];
      raw.subscribe(inbox, { callback: (_error, msg) => received.push(msg) });
      const hdrs = headers();
      hdrs.set(ACCEPT_PARTS_HEADER, 'acked');
      raw.publish(subject, new TextEncoder().encode(JSON.stringify({ pattern: subject, data: 'paced', id: 'paced-1' })), { reply: inbox, headers: hdrs });
      const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 300));
      // Until `count` parts came (encoding 20 MB takes a while on a busy machine), then a moment in which no more may come.
      const receivedAtLeast = async (count: number): Promise<void> => {
        for (let waited = 0; received.length < count && waited < 10_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
        await settle();
      };
      await receivedAtLeast(PART_WINDOW);
      expect(received.map((msg) => msg.headers?.get(PART_HEADER))).toEqual(Array.from({ length: PART_WINDOW }, (_, i) => `${i + 1}/21`));
      // An acknowledgement names the highest part taken, so one that says 2 (the one for 1 lost) lets two more go.
      const ackSubject = received[0]?.headers?.get(PART_ACK_HEADER) ?? '';
      expect(ackSubject).not.toBe('');
      raw.publish(ackSubject, '2');
      raw.publish(ackSubject, '1'); // late: changes nothing
      await receivedAtLeast(PART_WINDOW + 2);
      expect(received).toHaveLength(PART_WINDOW + 2);
      expect(received.at(-1)?.headers?.get(PART_HEADER)).toBe(`${PART_WINDOW + 2}/21`);
      // Closing does not wait for a requester that stopped acknowledging: only a short grace, and the requester is told.
      const closing = Date.now();
      await transport.close();
      expect(Date.now() - closing).toBeLessThan(5_000);
      await receivedAtLeast(PART_WINDOW + 3);
      const last = received.at(-1);
      expect(last?.headers?.get(PART_HEADER)).toBeFalsy();
      expect(JSON.parse(new TextDecoder().decode(last?.data))).toMatchObject({ id: 'paced-1', err: { code: 'unavailable' } });
    } finally {
      await raw.close();
      await transport.close();
    }
  });

  it('counts a request\'s headers against max_payload as NATS does: a body that fits only without them is 413, not unavailable', async () => {
    const transport = await connectNatsTransport({ url, name: 'lore-payload-headers' });
    const raw = await connect({ servers: url });
    try {
      const maxPayload = raw.info?.max_payload ?? 1024 * 1024;
      const subject = `lore-contract.headers.${process.pid}.${Date.now()}`;
      await transport.serve(subject, async (payload) => (typeof payload === 'string' ? payload.length : null));
      // The request packet's JSON around the payload (the id is a 22-character nuid).
      const envelope = JSON.stringify({ pattern: subject, data: '', id: 'x'.repeat(22) }).length;
      const fitsWithoutHeaders = 'n'.repeat(maxPayload - envelope - 10);
      await expect(transport.request(subject, fitsWithoutHeaders)).rejects.toMatchObject({ code: 'too_large', message: expect.stringContaining('of headers') });
      const fitsWithHeaders = 'n'.repeat(maxPayload - envelope - 2048);
      await expect(transport.request(subject, fitsWithHeaders)).resolves.toBe(fitsWithHeaders.length);
    } finally {
      await raw.close();
      await transport.close();
    }
  });

  it('fails a request still waiting for its reply as soon as its transport closes, not at its timeout', async () => {
    const server = await connectNatsTransport({ url, name: 'lore-slow-server' });
    const client = await connectNatsTransport({ url, name: 'lore-closing-client' });
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    try {
      const subject = `lore-contract.closing.${process.pid}.${Date.now()}`;
      await server.serve(subject, () => held.then(() => 'late'));
      const started = Date.now();
      const waiting = client.request(subject, 'hello', { timeoutMs: 30_000 });
      const outcome = expect(waiting).rejects.toMatchObject({ code: 'unavailable' });
      await new Promise((resolve) => setTimeout(resolve, 100));
      await client.close();
      await outcome;
      expect(Date.now() - started).toBeLessThan(10_000);
    } finally {
      release();
      await server.close();
    }
  });

  it('rejects at connect time when the server is unreachable', async () => {
    await expect(connectNatsTransport({ url: 'nats://127.0.0.1:1' })).rejects.toBeDefined();
  });
});
