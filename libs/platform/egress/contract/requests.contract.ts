import type { Harness } from './contract-fixture';
import { ok, refusal } from './contract-fixture';

/** What is sent and returned, and which addresses may be reached at all. */
export function describeRequestContract(h: Harness): void {
  describe('requests and responses', () => {
    it('reaches an allowed address, sending method, headers and body as given, over a fresh connection', async () => {
      const server = await h.serve((_req, res) => {
        res.setHeader('x-reply', ['a', 'b']);
        res.end('hello');
      });
      for (const allow of [['127.0.0.1'], ['127.0.0.0/8']]) {
        const response = await (await h.open({ allow })).request({
          method: 'POST',
          url: server.url('/v1/check?x=1'),
          headers: { authorization: 'Bearer t', 'content-type': 'text/plain', Host: 'evil.example' },
          body: 'payload',
        });
        expect(response).toMatchObject({ status: 200, body: 'hello', url: server.url('/v1/check?x=1') });
        expect(response.headers['x-reply']).toBe('a, b');
        expect(response.elapsedMs).toBeGreaterThanOrEqual(0);
      }
      expect(server.seen).toHaveLength(2);
      expect(server.seen[0]).toMatchObject({ method: 'POST', url: '/v1/check?x=1', body: 'payload' });
      // Host follows the URL (it must agree with the vetted host); the given one is dropped.
      expect(server.seen[0]?.headers).toMatchObject({ authorization: 'Bearer t', 'content-type': 'text/plain', host: `127.0.0.1:${server.port}`, connection: 'close' });
      expect(server.peers).toHaveLength(2);
    });

    it('returns a response of any status as a response: 401, 404 and 500 are not refusals', async () => {
      const server = await h.serve((req, res) => {
        const status = Number(req.url?.slice(1));
        res.writeHead(status, { 'www-authenticate': 'Bearer', 'content-type': 'application/json' }).end(`{"status":${status}}`);
      });
      const egress = await h.open({ allow: ['127.0.0.1'] });
      for (const status of [401, 404, 500]) {
        const response = await egress.request({ method: 'GET', url: server.url(`/${status}`) });
        expect(response).toMatchObject({ status, body: `{"status":${status}}` });
        expect(response.headers).toMatchObject({ 'www-authenticate': 'Bearer', 'content-type': 'application/json' });
      }
    });

    it('returns an empty body for HEAD and a 204', async () => {
      const server = await h.serve((req, res) => (req.method === 'HEAD' ? res.writeHead(200, { 'content-length': '5' }).end() : res.writeHead(204).end()));
      const egress = await h.open({ allow: ['127.0.0.1'] });
      expect(await egress.request({ method: 'HEAD', url: server.url() })).toMatchObject({ status: 200, body: '' });
      expect(await egress.request({ method: 'DELETE', url: server.url('/item') })).toMatchObject({ status: 204, body: '' });
      expect(server.seen.map((s) => s.method)).toEqual(['HEAD', 'DELETE']);
    });
  });

  describe('address policy', () => {
    it('refuses a loopback server without an allow list, before any request reaches it', async () => {
      const server = await h.serve(ok);
      const error = await refusal((await h.open({ allow: [] })).request({ method: 'GET', url: server.url() }));
      expect(error).toMatchObject({ reason: 'blocked_address', message: 'refused: 127.0.0.1 is a loopback address; allow it with LORE_EGRESS_ALLOW' });
      expect(server.peers).toHaveLength(0);
    });

    it('refuses 127.0.0.2 when only 127.0.0.1 is allowed, and reaches it once its range is', async () => {
      const server = await h.serve(ok, '127.0.0.2');
      const error = await refusal((await h.open({ allow: ['127.0.0.1'] })).request({ method: 'GET', url: server.url() }));
      expect(error).toMatchObject({ reason: 'blocked_address', message: 'refused: 127.0.0.2 is a loopback address; allow it with LORE_EGRESS_ALLOW' });
      expect(server.peers).toHaveLength(0);
      expect((await (await h.open({ allow: ['127.0.0.0/8'] })).request({ method: 'GET', url: server.url() })).body).toBe('hello');
    });

    it.each(['2130706433', '0177.0.0.1', '0x7f.0.0.1', '[::ffff:127.0.0.1]', '[::1]', '[::7f00:1]', '0.0.0.0'])('refuses the IP literal %s', async (host) => {
      const server = await h.serve(ok);
      const error = await refusal((await h.open({ allow: [] })).request({ method: 'GET', url: `http://${host}:${server.port}/` }));
      expect(error.reason).toBe('blocked_address');
      expect(server.peers).toHaveLength(0);
    });

    it('refuses the cloud metadata address, naming its kind', async () => {
      const error = await refusal((await h.open({ allow: ['127.0.0.1'] })).request({ method: 'GET', url: 'http://169.254.169.254/latest/meta-data/' }));
      expect(error).toMatchObject({ reason: 'blocked_address', message: 'refused: 169.254.169.254 is a link-local address; allow it with LORE_EGRESS_ALLOW' });
    });

    it("refuses 'localhost' unless the hostname is allowed", async () => {
      const server = await h.serve(ok);
      const url = `http://localhost:${server.port}/`;
      const error = await refusal((await h.open({ allow: [] })).request({ method: 'GET', url }));
      expect(error.reason).toBe('blocked_address');
      expect(error.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address; allow it with LORE_EGRESS_ALLOW$/);
      expect(server.peers).toHaveLength(0);
      const response = await (await h.open({ allow: ['localhost'] })).request({ method: 'GET', url });
      expect(response.body).toBe('hello');
      expect(server.seen[0]?.headers.host).toBe(`localhost:${server.port}`);
    });

    it.each([
      ['file:///etc/passwd', 'refused: only http and https URLs are allowed, not file:'],
      ['ftp://127.0.0.1/x', 'refused: only http and https URLs are allowed, not ftp:'],
      ['/relative/path', 'refused: the URL is not a valid absolute URL'],
    ])('refuses %s as an invalid URL', async (url, message) => {
      const error = await refusal((await h.open({ allow: ['127.0.0.1'] })).request({ method: 'GET', url }));
      expect(error).toMatchObject({ reason: 'invalid_url', message });
    });
  });
}
