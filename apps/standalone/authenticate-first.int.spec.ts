import { request as httpRequest } from 'node:http';
import { z } from 'zod';
import { route } from '@lore/platform/http';
import { mintJwt } from '@lore/gateway/e2e';
import { startGatewayOverKeys } from './gateway-over-keys.fixture';

const SECRET = 'authenticate-first-int-secret-0123456789';

/**
 * The gateway decides who is calling (authentication, permission, rate limits) before it
 * reads a request's body: an anonymous caller cannot make it read, decode and parse up to a
 * route's body limit for a 401.
 */
describe('a request is authenticated before its body is read', () => {
  let gateway: Awaited<ReturnType<typeof startGatewayOverKeys>>;
  let port = 0;

  beforeAll(async () => {
    const echo = route({
      method: 'POST',
      path: '/api/v1/echo-check',
      operationId: 'echo_check',
      summary: 'Echoes a note',
      tags: ['test'],
      auth: true,
      permission: null,
      status: 200,
      body: z.object({ note: z.string() }),
      response: z.object({ note: z.string() }),
      handle: async ({ body }) => ({ note: body.note }),
    });
    gateway = await startGatewayOverKeys([echo], { jwtSecret: SECRET, maxBodyBytes: 16 * 1024 * 1024 });
    port = gateway.port;
  });
  afterAll(async () => {
    await gateway.stop();
  });

  /** Sends the headers and `sent` bytes of a body announced as `announced` bytes, and resolves with the status if an answer comes before the rest. */
  function answerBeforeBody(headers: Record<string, string>, sent: string, announced: number, path = '/api/v1/echo-check'): Promise<{ status: number; body: string } | 'no answer'> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'content-type': 'application/json', 'content-length': String(announced), ...headers } }, (res) => {
        let body = '';
        res.on('data', (piece: Buffer) => (body += piece.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.on('error', (error) => (String(error).includes('ECONNRESET') || String(error).includes('EPIPE') ? undefined : reject(error)));
      req.write(sent);
      setTimeout(() => {
        resolve('no answer');
        req.destroy();
      }, 2_000);
    });
  }

  it('answers an anonymous caller 401 before its body has arrived', async () => {
    const answer = await answerBeforeBody({}, '{"note":"' + 'x'.repeat(1024), 8 * 1024 * 1024);
    expect(answer).toMatchObject({ status: 401, body: expect.stringContaining('Not authenticated') });
  });

  it('answers an anonymous MCP request 401 before its body has arrived', async () => {
    const answer = await answerBeforeBody({}, '{"jsonrpc":"2.0","method":"' + 'x'.repeat(1024), 8 * 1024 * 1024, '/mcp');
    expect(answer).toMatchObject({ status: 401 });
  });

  it('answers a bad token 401 rather than parsing its malformed body', async () => {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/echo-check`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: '{"note": [[[' });
    expect(res.status).toBe(401);
  });

  it('reads and parses the body of an authenticated caller', async () => {
    const authorization = `Bearer ${await mintJwt(SECRET, { sub: 'ada', workspace_id: 'ws' })}`;
    const ok = await fetch(`http://127.0.0.1:${port}/api/v1/echo-check`, { method: 'POST', headers: { 'content-type': 'application/json', authorization }, body: JSON.stringify({ note: 'hi' }) });
    expect({ status: ok.status, body: await ok.json() }).toEqual({ status: 200, body: { note: 'hi' } });
    // A caller it knows still waits for its whole body, as it must.
    expect(await answerBeforeBody({ authorization }, '{"note":"x', 1024)).toBe('no answer');
  });
});
