import type { Harness } from './contract-fixture';
import { eventually, refusal } from './contract-fixture';

/** One deadline, a size cap, and servers that cannot be reached or drop out. */
export function describeLimitsContract(h: Harness): void {
  const allow = ['127.0.0.1'];

  describe('deadline', () => {
    it('times out a server that never answers at the adapter’s default, and lets go of the connection', async () => {
      const server = await h.serve(() => undefined);
      const egress = await h.open({ allow, defaultTimeoutMs: 300 });
      const started = Date.now();
      const error = await refusal(egress.request({ method: 'GET', url: server.url() }));
      const elapsed = Date.now() - started;
      expect(error).toMatchObject({ reason: 'timeout', message: `timed out: no complete response from http://127.0.0.1:${server.port} within 300 ms` });
      expect(elapsed).toBeGreaterThanOrEqual(290);
      expect(elapsed).toBeLessThan(1500);
      expect(await eventually(() => server.closed === 1)).toBe(true);
    });

    it('times out a body that drips in, although bytes keep arriving', async () => {
      const server = await h.serve((_req, res) => {
        res.writeHead(200);
        const drip = setInterval(() => res.write('.'), 50);
        res.on('close', () => clearInterval(drip));
      });
      const started = Date.now();
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: server.url(), timeoutMs: 300 }));
      expect(error.reason).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1500);
      expect(await eventually(() => server.closed === 1)).toBe(true);
    });

    it('spans redirects: hops that are each quick but together too slow time out', async () => {
      const server = await h.serve((req, res) => {
        const n = Number(req.url?.slice(1) || 0);
        setTimeout(() => res.writeHead(302, { location: `/${n + 1}` }).end(), 120);
      });
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: server.url(), timeoutMs: 300, maxRedirects: 10 }));
      expect(error.reason).toBe('timeout');
      expect(server.seen.length).toBeLessThanOrEqual(3);
    });
  });

  describe('response size', () => {
    it('refuses a streamed body over the adapter’s cap and lets go of the connection', async () => {
      const server = await h.serve((_req, res) => {
        // Chunked (no length to check up front, the bytes are counted) and never ended, so only
        // the client letting go can close the connection.
        res.writeHead(200);
        res.write('x'.repeat(64 * 1024 + 1));
      });
      const error = await refusal((await h.open({ allow, maxResponseBytes: 64 * 1024 })).request({ method: 'GET', url: server.url() }));
      expect(error).toMatchObject({ reason: 'response_too_large', message: `refused: the response from http://127.0.0.1:${server.port} is larger than 65536 bytes` });
      expect(await eventually(() => server.closed === 1)).toBe(true);
    });

    it('refuses a declared Content-Length over the cap before reading the body', async () => {
      // Declares 100 bytes, sends 5 and stalls: only the header check can refuse before the deadline.
      const server = await h.serve((_req, res) => res.writeHead(200, { 'content-length': '100' }).write('01234'));
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: server.url(), maxResponseBytes: 99, timeoutMs: 5000 }));
      expect(error.reason).toBe('response_too_large');
    });

    it('accepts a body exactly at a per-request cap', async () => {
      const server = await h.serve((_req, res) => res.end('0123456789'));
      const egress = await h.open({ allow });
      expect((await egress.request({ method: 'GET', url: server.url(), maxResponseBytes: 10 })).body).toBe('0123456789');
      expect((await refusal(egress.request({ method: 'GET', url: server.url(), maxResponseBytes: 9 }))).reason).toBe('response_too_large');
    });
  });

  describe('unreachable', () => {
    it('reports a closed port as unreachable, naming the host and port', async () => {
      const port = await h.closedPort();
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: `http://127.0.0.1:${port}/` }));
      expect(error.reason).toBe('unreachable');
      // How it failed (the socket's code, a proxy's status) is the adapter's to word.
      expect(error.message).toMatch(new RegExp(`^could not reach 127\\.0\\.0\\.1:${port}(?!\\d)`));
    });

    it('reports a connection dropped in the middle of the body, without waiting for the deadline', async () => {
      const server = await h.serve((req, res) => {
        res.writeHead(200, { 'content-length': '100' }).write('01234', () => req.socket.destroy());
      });
      const started = Date.now();
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: server.url(), timeoutMs: 5000 }));
      expect(error.reason).toBe('unreachable');
      expect(error.message).toMatch(new RegExp(`^could not reach 127\\.0\\.0\\.1:${server.port}(?!\\d)`));
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('reports a TLS failure (https to a plain-http server) as unreachable', async () => {
      const server = await h.serve((_req, res) => res.end('plain'));
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: `https://127.0.0.1:${server.port}/` }));
      expect(error.reason).toBe('unreachable');
      expect(error.message).toContain('TLS certificate or handshake was not accepted');
    });
  });
}
