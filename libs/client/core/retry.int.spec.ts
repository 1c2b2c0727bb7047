import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { retryingFetch, type RetryPolicy } from './retry';

const POLICY: RetryPolicy = { maxRetries: 3, baseDelayMs: 10, maxDelayMs: 5_000 };

/** A real HTTP server on 127.0.0.1 answering each request as `script` says (by its 1-based number), recording what came. */
async function scriptedServer(script: (n: number) => { status: number; headers?: Record<string, string> } | 'reset'): Promise<{ url: string; bodies: string[]; close: () => Promise<void> }> {
  const bodies: string[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      bodies.push(body);
      const step = script(bodies.length);
      if (step === 'reset') return request.socket.destroy();
      response.writeHead(step.status, { 'content-type': 'application/json', ...step.headers }).end(JSON.stringify({ detail: `answer ${bodies.length}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/x`, bodies, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

const post = (url: string): Request => new Request(url, { method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });

describe('retryingFetch', () => {
  it('repeats a 429 after Retry-After, body and all, for any request', async () => {
    const server = await scriptedServer((n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 201 }));
    const started = Date.now();
    const response = await retryingFetch(fetch, POLICY, false)(post(server.url));
    expect(response.status).toBe(201);
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(server.bodies).toEqual(['{"a":1}', '{"a":1}']);
    await server.close();
  });

  it('repeats a 503 and a dropped connection only for idempotent requests', async () => {
    const flaky = (n: number) => (n === 1 ? ('reset' as const) : n === 2 ? { status: 503 } : { status: 200 });
    const idempotent = await scriptedServer(flaky);
    expect((await retryingFetch(fetch, POLICY, true)(post(idempotent.url))).status).toBe(200);
    expect(idempotent.bodies).toHaveLength(3);
    await idempotent.close();

    const once = await scriptedServer((n) => (n === 1 ? { status: 503 } : { status: 200 }));
    expect((await retryingFetch(fetch, POLICY, false)(post(once.url))).status).toBe(503);
    expect(once.bodies).toHaveLength(1);
    await once.close();

    const reset = await scriptedServer(() => 'reset');
    await expect(retryingFetch(fetch, POLICY, false)(post(reset.url))).rejects.toThrow();
    expect(reset.bodies).toHaveLength(1);
    await reset.close();
  });

  it('gives up after maxRetries, and does not wait for a Retry-After longer than maxDelayMs', async () => {
    const always = await scriptedServer(() => ({ status: 429, headers: { 'retry-after': '0' } }));
    expect((await retryingFetch(fetch, POLICY, true)(post(always.url))).status).toBe(429);
    expect(always.bodies).toHaveLength(POLICY.maxRetries + 1);
    await always.close();

    const far = await scriptedServer(() => ({ status: 429, headers: { 'retry-after': '3600' } }));
    const started = Date.now();
    expect((await retryingFetch(fetch, POLICY, true)(post(far.url))).status).toBe(429);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(far.bodies).toHaveLength(1);
    await far.close();
  });
});
