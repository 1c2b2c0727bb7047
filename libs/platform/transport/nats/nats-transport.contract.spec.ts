import { describeWithServer } from '@lore/platform/testing';
import { describeTransportContract } from '@lore/platform/transport/contract';
import { connect } from 'nats';
import { connectNatsTransport } from './nats-transport.adapter';
import { MAX_PARTED_REPLY_BYTES } from './reply-parts';

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
      await expect(transport.request(subject, 'huge reply')).rejects.toMatchObject({ code: 'too_large', message: expect.stringContaining('in parts') });
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
