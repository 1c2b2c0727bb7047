import { describeTransportContract } from '@lore/platform/transport/contract';
import { createInProcessTransport } from './in-process-transport.adapter';

describeTransportContract('in-process', async () => {
  const transport = createInProcessTransport();
  return { transport, cleanup: () => transport.close() };
});

describe('in-process transport onError', () => {
  it('reports subscriber failures to onError and keeps delivering', async () => {
    const errors: unknown[] = [];
    const transport = createInProcessTransport({ onError: (error) => errors.push(error) });
    const received: unknown[] = [];
    await transport.subscribe('lore-contract.on-error', async (payload) => {
      if (payload === 'boom') throw new Error('subscriber bug');
      received.push(payload);
    });

    await transport.publish('lore-contract.on-error', 'boom');
    await transport.publish('lore-contract.on-error', 'after');
    await transport.close();

    expect(errors).toEqual([new Error('subscriber bug')]);
    expect(received).toEqual(['after']);
  });
});
