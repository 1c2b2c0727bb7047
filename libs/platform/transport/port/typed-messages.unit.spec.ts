import { z } from 'zod';
import { defineMessage, withRequestContext } from '@lore/platform/kernel';
import { createInProcessTransport } from '@lore/platform/transport/in-process';
import { handle, send, serveMessages } from './typed-messages';

const slow = defineMessage('typed.slow', z.object({}), z.object({ ok: z.boolean() }));

describe('send inside a served request', () => {
  it('gives a nested request no more than the outer request has left', async () => {
    const transport = createInProcessTransport();
    await serveMessages(transport, [handle(slow, () => new Promise((resolve) => setTimeout(() => resolve({ ok: true }), 2_000)))]);
    const started = Date.now();
    const nested = withRequestContext({ requestId: 'outer', deadline: Date.now() + 600 }, () => send(transport, slow, {}));
    await expect(nested).rejects.toMatchObject({ code: 'unavailable' });
    expect(Date.now() - started).toBeLessThan(1_000);
    // Outside a request, or with a timeout of its own, the request keeps its time.
    await expect(withRequestContext({ requestId: 'outer', deadline: Date.now() + 600 }, () => send(transport, slow, {}, { timeoutMs: 3_000 }))).resolves.toEqual({ ok: true });
    await transport.close();
  });
});
