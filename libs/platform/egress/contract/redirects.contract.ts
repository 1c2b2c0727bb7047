import type { OutboundRequest } from '@lore/platform/egress/port';
import type { Harness } from './contract-fixture';
import { ok, refusal } from './contract-fixture';

/** Only same-host redirects are followed, within a count, with fetch's method rules. */
export function describeRedirectContract(h: Harness): void {
  describe('redirects', () => {
    const allow = ['127.0.0.1', '127.0.0.2'];

    it('follows a same-host 302 to the new path', async () => {
      const server = await h.serve((req, res) => (req.url === '/start' ? res.writeHead(302, { location: '/final?page=2' }).end('moved') : res.end(`at ${req.url}`)));
      const response = await (await h.open({ allow })).request({ method: 'GET', url: server.url('/start') });
      expect(response).toMatchObject({ status: 200, body: 'at /final?page=2', url: server.url('/final?page=2') });
      expect(server.seen.map((s) => s.url)).toEqual(['/start', '/final?page=2']);
    });

    it('turns a POST into a GET without body after a 303, keeping the other headers; a 307 keeps both', async () => {
      const server = await h.serve((req, res) => {
        if (req.url === '/submit') return res.writeHead(303, { location: '/done' }).end();
        if (req.url === '/again') return res.writeHead(307, { location: '/done' }).end();
        res.end('done');
      });
      const egress = await h.open({ allow });
      const post = (path: string): OutboundRequest => ({
        method: 'POST',
        url: server.url(path),
        headers: { authorization: 'Bearer t', 'Content-Type': 'application/json' },
        body: '{"a":1}',
      });
      expect((await egress.request(post('/submit'))).body).toBe('done');
      await egress.request(post('/again'));
      const [, after303, , after307] = server.seen;
      expect(after303).toMatchObject({ method: 'GET', url: '/done', body: '' });
      expect(after303?.headers['content-type']).toBeUndefined();
      expect(after303?.headers.authorization).toBe('Bearer t');
      expect(after307).toMatchObject({ method: 'POST', url: '/done', body: '{"a":1}' });
    });

    it('refuses a redirect to another host (even one that is allowed) without contacting it', async () => {
      const other = await h.serve(ok, '127.0.0.2');
      const server = await h.serve((_req, res) => res.writeHead(302, { location: `${other.url('/x')}?token=abc` }).end());
      const egress = await h.open({ allow });
      const error = await refusal(egress.request({ method: 'GET', url: server.url() }));
      expect(error.reason).toBe('cross_host_redirect');
      expect(error.message).toContain(`another host, http://127.0.0.2:${other.port}`);
      expect(error.message).not.toContain('token');
      expect(other.peers).toHaveLength(0);
      // The other server is reachable: it is the redirect, not the address, that was refused.
      expect((await egress.request({ method: 'GET', url: other.url() })).body).toBe('hello');
    });

    it('refuses a redirect to the same address on another port', async () => {
      const other = await h.serve(ok);
      const server = await h.serve((_req, res) => res.writeHead(307, { location: other.url() }).end());
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: server.url() }));
      expect(error.reason).toBe('cross_host_redirect');
      expect(other.peers).toHaveLength(0);
    });

    it('stops a redirect loop after the adapter’s maxRedirects, or a request’s own', async () => {
      const server = await h.serve((_req, res) => res.writeHead(301, { location: '/loop' }).end());
      const egress = await h.open({ allow, maxRedirects: 2 });
      const error = await refusal(egress.request({ method: 'GET', url: server.url() }));
      expect(error).toMatchObject({ reason: 'too_many_redirects', message: `refused: http://127.0.0.1:${server.port} redirected more than 2 times` });
      expect(server.seen).toHaveLength(3);
      expect((await refusal(egress.request({ method: 'GET', url: server.url(), maxRedirects: 1 }))).reason).toBe('too_many_redirects');
      expect(server.seen).toHaveLength(5);
    });

    it('follows no redirect when a request allows none', async () => {
      const server = await h.serve((_req, res) => res.writeHead(302, { location: '/next' }).end());
      const error = await refusal((await h.open({ allow })).request({ method: 'GET', url: server.url(), maxRedirects: 0 }));
      expect(error).toMatchObject({
        reason: 'too_many_redirects',
        message: `refused: http://127.0.0.1:${server.port} redirected, and redirects are not followed for this request`,
      });
      expect(server.seen).toHaveLength(1);
    });
  });
}
