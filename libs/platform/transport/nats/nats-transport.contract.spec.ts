import { describeWithServer } from '@lore/platform/testing';
import { describeTransportContract } from '@lore/platform/transport/contract';
import { connectNatsTransport } from './nats-transport.adapter';

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

  it('refuses a request or a reply over the server\'s max_payload with a 413-coded error, and keeps serving', async () => {
    const transport = await connectNatsTransport({ url, name: 'lore-payload-limit' });
    try {
      const subject = `lore-contract.payload.${process.pid}.${Date.now()}`;
      const big = 'x'.repeat(2 * 1024 * 1024); // over the default 1 MiB
      await transport.serve(subject, async (payload) => (payload === 'big reply' ? big : 'ok'));
      await expect(transport.request(subject, big)).rejects.toMatchObject({ code: 'too_large' });
      await expect(transport.request(subject, 'big reply')).rejects.toMatchObject({ code: 'too_large' });
      await expect(transport.request(subject, 'small')).resolves.toBe('ok');
    } finally {
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
