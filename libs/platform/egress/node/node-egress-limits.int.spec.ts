import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { EgressRefused } from '@lore/platform/egress/port';
import type { OutboundRequest } from '@lore/platform/egress/port';
import { createNodeEgress } from './index';

/** Deadlines, size caps, unreachable hosts and what error messages may say. */

const servers: http.Server[] = [];

interface Served {
  readonly port: number;
  /** Requests that reached the handler. */
  requests: number;
  /** Connections the server saw closed: on a timeout or a cap the client must destroy its socket. */
  closed: number;
}

async function serve(handler: http.RequestListener): Promise<Served> {
  const served: Served = { port: 0, requests: 0, closed: 0 };
  const server = http.createServer((req, res) => {
    served.requests++;
    handler(req, res);
  });
  server.on('connection', (socket) => socket.on('close', () => served.closed++));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(served, { port: (server.address() as AddressInfo).port });
}

afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
});

async function refusal(promise: Promise<unknown>): Promise<EgressRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EgressRefused)) throw new Error(`expected an EgressRefused, got ${String(error)}`);
  return error;
}

const egress = createNodeEgress({ allow: ['127.0.0.1'] });
const get = ({ port }: { port: number }, more: Partial<OutboundRequest> = {}): OutboundRequest => ({ method: 'GET', url: `http://127.0.0.1:${port}/`, ...more });
const eventually = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  return check();
};

describe('deadline', () => {
  it('times out a server that never answers, within about timeoutMs, and closes the connection', async () => {
    const served = await serve(() => undefined);
    const started = Date.now();
    const error = await refusal(egress.request(get(served, { timeoutMs: 300 })));
    const elapsed = Date.now() - started;
    expect(error).toMatchObject({ reason: 'timeout', message: `timed out: no complete response from http://127.0.0.1:${served.port} within 300 ms` });
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(1500);
    expect(await eventually(() => served.closed === 1)).toBe(true);
  });

  it('times out a body that drips in, although bytes keep arriving', async () => {
    const served = await serve((_req, res) => {
      res.writeHead(200);
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(drip));
    });
    const started = Date.now();
    const error = await refusal(egress.request(get(served, { timeoutMs: 300 })));
    expect(error.reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(1500);
    expect(await eventually(() => served.closed === 1)).toBe(true);
  });

  it('covers DNS: a resolver that never answers times out too', async () => {
    const hanging = createNodeEgress({ resolve: () => new Promise(() => undefined) });
    const error = await refusal(hanging.request({ method: 'GET', url: 'https://slow-dns.test/', timeoutMs: 300 }));
    expect(error).toMatchObject({ reason: 'timeout', message: 'timed out: slow-dns.test could not be resolved within 300 ms' });
  });

  it('spans redirects: hops that are each quick but together too slow time out', async () => {
    const served = await serve((req, res) => {
      const n = Number(req.url?.slice(1) || 0);
      setTimeout(() => res.writeHead(302, { location: `/${n + 1}` }).end(), 120);
    });
    const error = await refusal(egress.request(get(served, { timeoutMs: 300, maxRedirects: 10 })));
    expect(error.reason).toBe('timeout');
    expect(served.requests).toBeLessThanOrEqual(3);
  });
});

describe('response size', () => {
  const big = 'x'.repeat(1024 * 1024 + 1);

  it('refuses a streamed body over the default 1 MiB cap and closes the connection', async () => {
    const served = await serve((_req, res) => {
      // Chunked (no length to check up front, the bytes are counted) and never ended, so only
      // the client's destroy can close the connection.
      res.writeHead(200);
      res.write(big);
    });
    const error = await refusal(egress.request(get(served)));
    expect(error).toMatchObject({ reason: 'response_too_large', message: `refused: the response from http://127.0.0.1:${served.port} is larger than 1048576 bytes` });
    expect(await eventually(() => served.closed === 1)).toBe(true);
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    // Declares 100 bytes, sends 5 and stalls: only the header check can refuse before the deadline.
    const served = await serve((_req, res) => res.writeHead(200, { 'content-length': '100' }).write('01234'));
    const error = await refusal(egress.request(get(served, { maxResponseBytes: 99, timeoutMs: 5000 })));
    expect(error.reason).toBe('response_too_large');
  });

  it('accepts a body exactly at a per-request cap', async () => {
    const served = await serve((_req, res) => res.end('0123456789'));
    expect((await egress.request(get(served, { maxResponseBytes: 10 }))).body).toBe('0123456789');
    expect((await refusal(egress.request(get(served, { maxResponseBytes: 9 })))).reason).toBe('response_too_large');
  });
});

describe('unreachable', () => {
  it('reports a refused connection with the host, port and code', async () => {
    const served = await serve(() => undefined);
    await new Promise<void>((resolve) => servers.pop()?.close(() => resolve()));
    const error = await refusal(egress.request(get(served)));
    expect(error).toMatchObject({ reason: 'unreachable', message: `could not reach 127.0.0.1:${served.port} (ECONNREFUSED)` });
  });

  it('reports a connection dropped in the middle of the body, without waiting for the deadline', async () => {
    const served = await serve((req, res) => {
      res.writeHead(200, { 'content-length': '100' }).write('01234', () => req.socket.destroy());
    });
    const started = Date.now();
    const error = await refusal(egress.request(get(served, { timeoutMs: 5000 })));
    expect(error).toMatchObject({ reason: 'unreachable', message: `could not reach 127.0.0.1:${served.port} (ECONNRESET)` });
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('reports a TLS failure (https to a plain-http server) as unreachable', async () => {
    const served = await serve((_req, res) => res.end('plain'));
    const error = await refusal(egress.request({ method: 'GET', url: `https://127.0.0.1:${served.port}/` }));
    expect(error.reason).toBe('unreachable');
    expect(error.message).toContain('TLS certificate or handshake was not accepted');
  });

  it('reports a name that does not resolve', async () => {
    const nowhere = createNodeEgress({ resolve: () => Promise.reject(Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' })) });
    const error = await refusal(nowhere.request({ method: 'GET', url: 'https://nowhere.test/' }));
    expect(error).toMatchObject({ reason: 'unreachable', message: 'could not resolve nowhere.test (ENOTFOUND)' });
  });
});

describe('error messages carry no secrets', () => {
  const secret = { header: 'hdr-s3cr3t-1', query: 'qry-s3cr3t-2', body: 'body-s3cr3t-3', user: 'usr-s3cr3t-4' };
  const withSecrets = (url: string): OutboundRequest => ({
    method: 'POST',
    url: `${url}${url.includes('?') ? '&' : '?'}api_key=${secret.query}`,
    headers: { authorization: `Bearer ${secret.header}`, 'x-api-key': secret.header },
    body: secret.body,
    timeoutMs: 300,
    maxResponseBytes: 10,
  });
  const expectClean = (error: EgressRefused) => {
    for (const value of Object.values(secret)) expect(error.message).not.toContain(value);
    expect(error.message).not.toContain('api_key');
  };

  it.each([
    ['blocked_address', () => 'http://10.0.0.1/'],
    ['invalid_url', () => `http://admin:${secret.user}@example.com/`],
    ['invalid_url', () => `not a url ${secret.user}`],
  ])('%s', async (reason, url) => {
    const error = await refusal(egress.request(withSecrets(url())));
    expect(error.reason).toBe(reason);
    expectClean(error);
  });

  it.each([
    ['timeout', '/hang'],
    ['response_too_large', '/big'],
    ['cross_host_redirect', '/away'],
    ['too_many_redirects', '/loop'],
    ['unreachable', '/reset'],
  ])('%s', async (reason, path) => {
    const served = await serve((req, res) => {
      if (req.url?.startsWith('/big')) return res.end('x'.repeat(100));
      if (req.url?.startsWith('/away')) return res.writeHead(307, { location: `http://203.0.113.9/${secret.query}?k=${secret.query}` }).end();
      if (req.url?.startsWith('/loop')) return res.writeHead(307, { location: req.url }).end();
      if (req.url?.startsWith('/reset')) return req.socket.destroy();
    });
    const error = await refusal(egress.request(withSecrets(`http://127.0.0.1:${served.port}${path}`)));
    expect(error.reason).toBe(reason);
    expectClean(error);
  });
});
