import type { OutboundRequest } from '@lore/platform/egress/port';
import type { EgressRefused } from '@lore/platform/egress/port';
import type { Harness } from './contract-fixture';
import { refusal } from './contract-fixture';

/**
 * Refusal messages are shown to the end user who typed the URL: none may carry a header value,
 * the body, a query string or URL credentials, whatever the refusal.
 */
export function describeSecretsContract(h: Harness): void {
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
      const error = await refusal((await h.open({ allow: ['127.0.0.1'] })).request(withSecrets(url())));
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
      const server = await h.serve((req, res) => {
        if (req.url?.startsWith('/big')) return res.end('x'.repeat(100));
        if (req.url?.startsWith('/away')) return res.writeHead(307, { location: `http://203.0.113.9/${secret.query}?k=${secret.query}` }).end();
        if (req.url?.startsWith('/loop')) return res.writeHead(307, { location: req.url }).end();
        if (req.url?.startsWith('/reset')) return req.socket.destroy();
      });
      const error = await refusal((await h.open({ allow: ['127.0.0.1'] })).request(withSecrets(server.url(path))));
      expect(error.reason).toBe(reason);
      expectClean(error);
    });
  });
}
