import http from 'node:http';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { EgressRefused } from '@lore/platform/egress/port';
import type { OutboundRequest } from '@lore/platform/egress/port';
import { createNodeEgress } from './index';

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: http.IncomingHttpHeaders;
  readonly body: string;
}

interface TestServer {
  readonly port: number;
  readonly seen: Seen[];
  /** Requests whose socket has closed (the client gave up or finished). */
  closed: number;
}

const servers: { close(): void; closeAllConnections?(): void }[] = [];

/** A real server on a loopback address, recording every request that reaches it. */
async function serve(handler: (req: http.IncomingMessage, res: http.ServerResponse, server: TestServer) => void, host = '127.0.0.1'): Promise<TestServer> {
  const state: TestServer = { port: 0, seen: [], closed: 0 };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    res.on('close', () => state.closed++);
    req.on('end', () => {
      state.seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      handler(req, res, state);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return Object.assign(state, { port: (server.address() as AddressInfo).port });
}

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections?.();
    server.close();
  }
});

const ok = (_req: http.IncomingMessage, res: http.ServerResponse) => res.end('hello');

/** The refusal a request ends in (fails the test when it succeeds). */
async function refusal(promise: Promise<unknown>): Promise<EgressRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EgressRefused)) throw new Error(`expected an EgressRefused, got ${String(error)}`);
  return error;
}

describe('createNodeEgress against real servers', () => {
  it('refuses a loopback server without an allow list, before any request reaches it', async () => {
    const server = await serve(ok);
    const error = await refusal(createNodeEgress().request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error.reason).toBe('blocked_address');
    expect(error.message).toBe('refused: 127.0.0.1 is a loopback address; allow it with LORE_EGRESS_ALLOW');
    expect(server.seen).toHaveLength(0);
  });

  it.each(['2130706433', '0177.0.0.1', '0x7f.0.0.1', '[::ffff:127.0.0.1]', '[::1]', '[::7f00:1]', '0.0.0.0'])('refuses the IP literal %s', async (host) => {
    const server = await serve(ok);
    const error = await refusal(createNodeEgress().request({ method: 'GET', url: `http://${host}:${server.port}/` }));
    expect(error.reason).toBe('blocked_address');
    expect(server.seen).toHaveLength(0);
  });

  it('reaches an allowed address, sending method, headers and body, with a fresh connection', async () => {
    const server = await serve((_req, res) => {
      res.setHeader('x-reply', ['a', 'b']);
      res.end('hello');
    });
    for (const allow of [['127.0.0.1'], ['127.0.0.0/8']]) {
      const response = await createNodeEgress({ allow }).request({
        method: 'POST',
        url: `http://127.0.0.1:${server.port}/v1/check?x=1`,
        headers: { authorization: 'Bearer t', 'content-type': 'text/plain', Host: 'evil.example' },
        body: 'payload',
      });
      expect(response).toMatchObject({ status: 200, body: 'hello', url: `http://127.0.0.1:${server.port}/v1/check?x=1` });
      expect(response.headers['x-reply']).toBe('a, b');
      expect(response.elapsedMs).toBeGreaterThanOrEqual(0);
    }
    expect(server.seen).toHaveLength(2);
    expect(server.seen[0]).toMatchObject({ method: 'POST', url: '/v1/check?x=1', body: 'payload' });
    expect(server.seen[0]?.headers).toMatchObject({
      authorization: 'Bearer t',
      'user-agent': 'Lore',
      host: `127.0.0.1:${server.port}`,
      connection: 'close',
    });
  });

  it("refuses 'localhost' unless the hostname (or its addresses) is allowed", async () => {
    const server = await serve(ok);
    const url = `http://localhost:${server.port}/`;
    const error = await refusal(createNodeEgress().request({ method: 'GET', url }));
    expect(error.reason).toBe('blocked_address');
    expect(error.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; allow it with LORE_EGRESS_ALLOW$/);
    expect(server.seen).toHaveLength(0);
    const response = await createNodeEgress({ allow: ['LOCALHOST'] }).request({ method: 'GET', url });
    expect(response.body).toBe('hello');
    expect(server.seen).toHaveLength(1);
  });

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

describe('redirects', () => {
  const allow = ['127.0.0.1', '127.0.0.2'];

  it('follows a same-host 302 to the new path', async () => {
    const server = await serve((req, res) => (req.url === '/start' ? res.writeHead(302, { location: '/final?page=2' }).end('moved') : res.end(`at ${req.url}`)));
    const response = await createNodeEgress({ allow }).request({ method: 'GET', url: `http://127.0.0.1:${server.port}/start` });
    expect(response).toMatchObject({ status: 200, body: 'at /final?page=2', url: `http://127.0.0.1:${server.port}/final?page=2` });
    expect(server.seen.map((s) => s.url)).toEqual(['/start', '/final?page=2']);
  });

  it('turns a POST into a GET without body after a 303, keeping the other headers; a 307 keeps both', async () => {
    const server = await serve((req, res) => {
      if (req.url === '/submit') return res.writeHead(303, { location: '/done' }).end();
      if (req.url === '/again') return res.writeHead(307, { location: '/done' }).end();
      res.end('done');
    });
    const egress = createNodeEgress({ allow });
    const post = (path: string): OutboundRequest => ({
      method: 'POST',
      url: `http://127.0.0.1:${server.port}${path}`,
      headers: { authorization: 'Bearer t', 'Content-Type': 'application/json' },
      body: '{"a":1}',
    });
    await egress.request(post('/submit'));
    await egress.request(post('/again'));
    const [, after303, , after307] = server.seen;
    expect(after303).toMatchObject({ method: 'GET', url: '/done', body: '' });
    expect(after303?.headers['content-type']).toBeUndefined();
    expect(after303?.headers.authorization).toBe('Bearer t');
    expect(after307).toMatchObject({ method: 'POST', url: '/done', body: '{"a":1}' });
  });

  it('refuses a redirect to another host (even one that is allowed) without contacting it', async () => {
    const other = await serve(ok, '127.0.0.2');
    const server = await serve((_req, res) => res.writeHead(302, { location: `http://127.0.0.2:${other.port}/x?token=abc` }).end());
    const egress = createNodeEgress({ allow });
    const error = await refusal(egress.request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error.reason).toBe('cross_host_redirect');
    expect(error.message).toContain(`another host, http://127.0.0.2:${other.port}`);
    expect(error.message).not.toContain('token');
    expect(other.seen).toHaveLength(0);
    // The other server is reachable: it is the redirect, not the address, that was refused.
    expect((await egress.request({ method: 'GET', url: `http://127.0.0.2:${other.port}/` })).body).toBe('hello');
  });

  it('refuses a redirect to the same address on another port', async () => {
    const other = await serve(ok);
    const server = await serve((_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${other.port}/` }).end());
    const error = await refusal(createNodeEgress({ allow }).request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error.reason).toBe('cross_host_redirect');
    expect(other.seen).toHaveLength(0);
  });

  it('stops a redirect loop after maxRedirects', async () => {
    const server = await serve((_req, res) => res.writeHead(301, { location: '/loop' }).end());
    const error = await refusal(createNodeEgress({ allow }).request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error).toMatchObject({ reason: 'too_many_redirects', message: `refused: http://127.0.0.1:${server.port} redirected more than 3 times` });
    expect(server.seen).toHaveLength(4);
    const once = await refusal(createNodeEgress({ allow }).request({ method: 'GET', url: `http://127.0.0.1:${server.port}/`, maxRedirects: 1 }));
    expect(once.reason).toBe('too_many_redirects');
    expect(server.seen).toHaveLength(6);
  });
});
