import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { EgressRefused } from '@lore/platform/egress/port';
import { createNodeEgress } from './index';

/**
 * What the direct adapter does beyond the port's contract (node-egress.contract.spec.ts): DNS
 * through a custom resolver (vetting every answer, pinning the connection to it), SNI, and
 * its defaults.
 */

const servers: { close(): void; closeAllConnections?(): void }[] = [];

/** A real server on 127.0.0.1, counting the requests that reach it. */
async function serve(handler: http.RequestListener): Promise<{ port: number; seen: http.IncomingMessage[] }> {
  const seen: http.IncomingMessage[] = [];
  const server = http.createServer((req, res) => (seen.push(req), handler(req, res)));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen };
}

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections?.();
    server.close();
  }
});

const ok: http.RequestListener = (_req, res) => res.end('hello');

/** The refusal a request ends in (fails the test when it succeeds). */
async function refusal(promise: Promise<unknown>): Promise<EgressRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EgressRefused)) throw new Error(`expected an EgressRefused, got ${String(error)}`);
  return error;
}

describe('createNodeEgress with a custom resolver', () => {
  it('names the address and its kind when a hostname resolves to a private address, and checks every address', async () => {
    const resolve = async (host: string) => (host === 'api.example.com' ? [{ address: '10.0.0.5' }] : [{ address: '8.8.8.8' }, { address: '169.254.169.254' }]);
    const egress = createNodeEgress({ resolve });
    const error = await refusal(egress.request({ method: 'GET', url: 'https://api.example.com/v1' }));
    expect(error).toMatchObject({ reason: 'blocked_address', message: 'refused: api.example.com resolves to 10.0.0.5, a private address; allow it with LORE_EGRESS_ALLOW' });
    const mixed = await refusal(egress.request({ method: 'GET', url: 'https://mixed.example.com/' }));
    expect(mixed.message).toContain('169.254.169.254, a link-local address');
  });

  it('connects to the vetted address without a second lookup (no DNS rebinding), Host kept as the hostname', async () => {
    const server = await serve(ok);
    const answers = ['127.0.0.1', '127.0.0.2'];
    const lookups: string[] = [];
    // 'pinned.test' exists nowhere else: a connection that looked it up again would fail, and a
    // second answer from this resolver would be the not-allowed 127.0.0.2.
    const resolve = async (host: string) => {
      lookups.push(host);
      return [{ address: answers[lookups.length - 1] ?? '127.0.0.2' }];
    };
    const response = await createNodeEgress({ allow: ['127.0.0.1'], resolve }).request({ method: 'GET', url: `http://pinned.test:${server.port}/` });
    expect(response.status).toBe(200);
    expect(lookups).toEqual(['pinned.test']);
    expect(server.seen[0]?.headers.host).toBe(`pinned.test:${server.port}`);
  });

  it('a *. hostname entry permits its subdomains whatever they resolve to', async () => {
    const server = await serve(ok);
    const resolve = async () => [{ address: '127.0.0.1' }];
    const url = `http://svc.corp.internal:${server.port}/`;
    expect((await refusal(createNodeEgress({ resolve }).request({ method: 'GET', url }))).reason).toBe('blocked_address');
    const response = await createNodeEgress({ allow: ['*.corp.internal'], resolve }).request({ method: 'GET', url });
    expect(response.status).toBe(200);
    expect(server.seen).toHaveLength(1);
  });

  it('covers DNS with the deadline: a resolver that never answers times out', async () => {
    const hanging = createNodeEgress({ resolve: () => new Promise(() => undefined) });
    const error = await refusal(hanging.request({ method: 'GET', url: 'https://slow-dns.test/', timeoutMs: 300 }));
    expect(error).toMatchObject({ reason: 'timeout', message: 'timed out: slow-dns.test could not be resolved within 300 ms' });
  });

  it('reports a name that does not resolve', async () => {
    const nowhere = createNodeEgress({ resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })) });
    const error = await refusal(nowhere.request({ method: 'GET', url: 'https://nowhere.test/' }));
    expect(error).toMatchObject({ reason: 'unreachable', message: 'could not resolve nowhere.test (ENOTFOUND)' });
  });

  it('sends SNI for the hostname, not the pinned address, over https', async () => {
    const names: string[] = [];
    const server = tls.createServer({ SNICallback: (name, done) => (names.push(name), done(new Error('no certificate here'))) });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const egress = createNodeEgress({ allow: ['127.0.0.1'], resolve: async () => [{ address: '127.0.0.1' }] });
    const error = await refusal(egress.request({ method: 'GET', url: `https://sni.test:${port}/` }));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toMatch(new RegExp(`^could not reach sni\\.test:${port} \\(`));
    expect(names).toEqual(['sni.test']);
  });
});

describe('createNodeEgress defaults', () => {
  const egress = createNodeEgress({ allow: ['127.0.0.1'] });

  it('caps responses at 1 MiB', async () => {
    // Chunked and never ended: only the count of bytes can refuse it.
    const server = await serve((_req, res) => res.writeHead(200).write('x'.repeat(1024 * 1024 + 1)));
    const error = await refusal(egress.request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error).toMatchObject({ reason: 'response_too_large', message: `refused: the response from http://127.0.0.1:${server.port} is larger than 1048576 bytes` });
  });

  it('follows at most 3 redirects, sends User-Agent: Lore and refuses a bad option at construction', async () => {
    const server = await serve((_req, res) => res.writeHead(301, { location: '/loop' }).end());
    const error = await refusal(egress.request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error.message).toBe(`refused: http://127.0.0.1:${server.port} redirected more than 3 times`);
    expect(server.seen).toHaveLength(4);
    expect(server.seen[0]?.headers['user-agent']).toBe('Lore');
    expect(() => createNodeEgress({ defaultTimeoutMs: 0 })).toThrow('egress: defaultTimeoutMs must be a positive number');
  });
});

describe('createNodeEgress connection reuse', () => {
  it('keeps a connection open only for requests that ask, and only to the same vetted address', async () => {
    const server = await serve(ok);
    const sockets = new Set<unknown>();
    const egress = createNodeEgress({ allow: ['127.0.0.1'] });
    const url = `http://127.0.0.1:${server.port}/`;
    for (let i = 0; i < 3; i++) await egress.request({ method: 'POST', url, body: 'x', reuseConnection: true });
    for (const req of server.seen) sockets.add(req.socket);
    expect(server.seen).toHaveLength(3);
    expect(sockets.size).toBe(1);
    await egress.request({ method: 'POST', url, body: 'x' });
    await egress.request({ method: 'POST', url, body: 'x' });
    expect(new Set(server.seen.slice(3).map((req) => req.socket)).size).toBe(2);
    expect(server.seen.slice(3).every((req) => !sockets.has(req.socket))).toBe(true);
  });
});
