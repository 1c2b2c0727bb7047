import { createInProcessTransport } from './in-process-transport.adapter';

describe('in-process transport', () => {
  it('answers every publish with one settled promise (no promise per event), and a refused publish with its own rejection', async () => {
    const transport = createInProcessTransport();
    const first = transport.publish('memory.created', { a: 1 });
    expect(transport.publish('memory.deleted', { b: 2 })).toBe(first);
    await expect(first).resolves.toBeUndefined();
    await expect(transport.publish('memory.created', { big: 1n })).rejects.toThrow(TypeError);
    await transport.close();
    await expect(transport.publish('memory.created', {})).rejects.toThrow(/closed/);
  });
});
