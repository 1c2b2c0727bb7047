import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { EgressRefused } from '@lore/platform/egress/port';
import { startConnectProxy } from './connect-proxy.fixture';
import type { ConnectProxy } from './connect-proxy.fixture';
import { createProxyEgress, openEgress, parseEgressProxyUrl } from './index';

/** What the proxy adapter does beyond the port's contract (proxy-egress.contract.spec.ts). */

// A self-signed certificate for secure.test (EC P-256, valid 2000–2126), for these tests only.
const KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgUtW6QtVNTbHhKYna
outYJvKJ15PgREA+b20Z+AmNvyOhRANCAAT1Hd+syBDZoEfhVphULhjf4GkxBmTn
IWHgue1TnAvSiXdHNSRz4UtRuW1GCKDsDE7/V16lYmsxedZtDIxlIIU6
-----END PRIVATE KEY-----`;
const CERT = `-----BEGIN CERTIFICATE-----
MIIBZzCCAQ2gAwIBAgIBATAKBggqhkjOPQQDAjAWMRQwEgYDVQQDDAtzZWN1cmUu
dGVzdDAgFw0wMDAxMDEwMDAwMDBaGA8yMTI2MDEwMTAwMDAwMFowFjEUMBIGA1UE
AwwLc2VjdXJlLnRlc3QwWTATBgcqhkjOPQIBBggqhkjOPQMBBwNCAAT1Hd+syBDZ
oEfhVphULhjf4GkxBmTnIWHgue1TnAvSiXdHNSRz4UtRuW1GCKDsDE7/V16lYmsx
edZtDIxlIIU6o0owSDAWBgNVHREEDzANggtzZWN1cmUudGVzdDAPBgNVHRMBAf8E
BTADAQH/MB0GA1UdDgQWBBSzLOeLEG/GbtA1k9+A7gZ5B3z4uTAKBggqhkjOPQQD
AgNIADBFAiEAkWdAIGdVz5by5Rfht39S7KsAVO1s9qyfrCsvtMMHNq4CIGLQ2HWu
8UyOa1Ha+s0KNEtPpRGSeARLrkah18im1dsM
-----END CERTIFICATE-----`;

const servers: http.Server[] = [];
let proxy: ConnectProxy;

beforeEach(async () => {
  proxy = await startConnectProxy();
});

afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    server.close();
  }
  await proxy.close();
});

/** A real server on 127.0.0.1 (https with the test certificate when asked), recording requests. */
async function serve(secure = false, reply?: http.RequestListener): Promise<{ port: number; seen: http.IncomingMessage[] }> {
  const seen: http.IncomingMessage[] = [];
  const hello: http.RequestListener = (req, res) => res.end(`hello ${(req.socket as tls.TLSSocket).servername || 'plain'}`);
  const handler: http.RequestListener = (req, res) => (seen.push(req), (reply ?? hello)(req, res));
  const server = secure ? https.createServer({ key: KEY, cert: CERT }, handler) : http.createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, seen };
}

async function refusal(promise: Promise<unknown>): Promise<EgressRefused> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof EgressRefused)) throw new Error(`expected an EgressRefused, got ${String(error)}`);
  return error;
}

const at = (address: string) => async () => [{ address }];

describe('createProxyEgress', () => {
  it('CONNECTs to the vetted address, never the hostname, so the proxy’s DNS cannot be steered (rebinding)', async () => {
    const server = await serve();
    const lookups: string[] = [];
    const resolve = async (host: string) => (lookups.push(host), [{ address: '127.0.0.1' }]);
    const egress = createProxyEgress({ proxyUrl: proxy.url, allow: ['127.0.0.1'], resolve });
    const response = await egress.request({ method: 'GET', url: `http://pinned.test:${server.port}/` });
    expect(response.body).toBe('hello plain');
    expect(proxy.tunnels).toEqual([`127.0.0.1:${server.port}`]);
    expect(lookups).toEqual(['pinned.test']);
    expect(server.seen[0]?.headers.host).toBe(`pinned.test:${server.port}`);
  });

  it('vets locally first: neither a blocked address nor a cross-host redirect’s target reaches the proxy', async () => {
    const egress = createProxyEgress({ proxyUrl: proxy.url, allow: ['127.0.0.0/8'] });
    expect((await refusal(egress.request({ method: 'GET', url: 'http://10.0.0.1/' }))).reason).toBe('blocked_address');
    expect(proxy.tunnels).toEqual([]);
    const server = await serve(false, (_req, res) => res.writeHead(302, { location: 'http://127.0.0.2/' }).end());
    expect((await refusal(egress.request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }))).reason).toBe('cross_host_redirect');
    expect(proxy.tunnels).toEqual([`127.0.0.1:${server.port}`]);
  });

  it('sends the URL’s credentials as Proxy-Authorization on CONNECT only, never to the target', async () => {
    const server = await serve();
    const egress = createProxyEgress({ proxyUrl: `http://lore:p%40ss@127.0.0.1:${proxy.port}`, allow: ['127.0.0.1'] });
    await egress.request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` });
    expect(proxy.authorizations).toEqual([`Basic ${Buffer.from('lore:p@ss').toString('base64')}`]);
    expect(server.seen[0]?.headers['proxy-authorization']).toBeUndefined();
  });

  it.each([
    [403, ''],
    [407, ': its credentials (user:password in LORE_EGRESS_PROXY) are missing or not accepted'],
  ])('reports a proxy that refuses CONNECT with %i as unreachable, without its credentials', async (status, why) => {
    const server = await serve();
    proxy.refuseWith = status;
    const egress = createProxyEgress({ proxyUrl: `http://usr-s3cr3t:pwd-s3cr3t@127.0.0.1:${proxy.port}`, allow: ['127.0.0.1'] });
    const error = await refusal(egress.request({ method: 'GET', url: `http://127.0.0.1:${server.port}/` }));
    expect(error).toMatchObject({ reason: 'unreachable', message: `the egress proxy refused to connect to 127.0.0.1:${server.port} (${status})${why}` });
    expect(error.message).not.toMatch(/s3cr3t/);
    expect(server.seen).toHaveLength(0);
  });

  it('reports a proxy that is down, naming it without its credentials', async () => {
    const { port } = proxy;
    await proxy.close();
    const egress = createProxyEgress({ proxyUrl: `http://usr-s3cr3t:pwd-s3cr3t@127.0.0.1:${port}`, allow: ['127.0.0.1'] });
    const error = await refusal(egress.request({ method: 'GET', url: 'http://127.0.0.1:9/' }));
    expect(error).toMatchObject({ reason: 'unreachable', message: `could not reach the egress proxy 127.0.0.1:${port} (ECONNREFUSED)` });
    proxy = await startConnectProxy();
  });

  it('tries the next vetted address when the proxy cannot reach one (5xx)', async () => {
    const server = await serve();
    // Nothing listens on 127.0.0.3: the proxy answers 502 for it.
    const resolve = async () => [{ address: '127.0.0.3' }, { address: '127.0.0.1' }];
    const egress = createProxyEgress({ proxyUrl: proxy.url, allow: ['127.0.0.0/8'], resolve });
    expect((await egress.request({ method: 'GET', url: `http://two.test:${server.port}/` })).status).toBe(200);
    expect(proxy.tunnels).toEqual([`127.0.0.3:${server.port}`, `127.0.0.1:${server.port}`]);
    const none = await refusal(createProxyEgress({ proxyUrl: proxy.url, allow: ['127.0.0.0/8'], resolve: at('127.0.0.3') }).request({ method: 'GET', url: `http://one.test:${server.port}/` }));
    expect(none).toMatchObject({ reason: 'unreachable', message: `could not reach one.test:${server.port} through the egress proxy (502)` });
  });

  it('drops a CONNECT the proxy never answers at the deadline', async () => {
    proxy.refuseWith = 0;
    const egress = createProxyEgress({ proxyUrl: proxy.url, allow: ['127.0.0.1'] });
    const error = await refusal(egress.request({ method: 'GET', url: 'http://127.0.0.1:9/', timeoutMs: 300 }));
    expect(error).toMatchObject({ reason: 'timeout', message: 'timed out: no complete response from http://127.0.0.1:9 within 300 ms' });
    for (let i = 0; i < 100 && proxy.clientsClosed === 0; i++) await new Promise((r) => setTimeout(r, 10));
    expect(proxy.clientsClosed).toBe(1);
  });
});

describe('createProxyEgress over https', () => {
  it('speaks TLS end to end through the tunnel, with SNI and the certificate checked on the hostname', async () => {
    const server = await serve(true);
    const egress = createProxyEgress({ proxyUrl: proxy.url, allow: ['127.0.0.1'], resolve: at('127.0.0.1') });
    const url = `https://secure.test:${server.port}/`;
    // The test certificate is self-signed: not trusted, so the handshake is refused…
    const untrusted = await refusal(egress.request({ method: 'GET', url }));
    expect(untrusted.reason).toBe('unreachable');
    expect(untrusted.message).toMatch(new RegExp(`^could not reach secure\\.test:${server.port} \\(.*\\); its TLS certificate or handshake was not accepted$`));
    // …and once trusted (as an operator's CA would be), the exchange goes through.
    const connect = tls.connect.bind(tls) as (options: tls.ConnectionOptions) => tls.TLSSocket;
    const trusting = jest.spyOn(tls, 'connect').mockImplementation(((options: tls.ConnectionOptions) => connect({ ...options, ca: CERT })) as typeof tls.connect);
    try {
      const response = await egress.request({ method: 'GET', url });
      expect(response).toMatchObject({ status: 200, body: 'hello secure.test' });
    } finally {
      trusting.mockRestore();
    }
    expect(proxy.tunnels).toEqual([`127.0.0.1:${server.port}`, `127.0.0.1:${server.port}`]);
    expect(server.seen[0]?.headers.host).toBe(`secure.test:${server.port}`);
  });
});

describe('configuration', () => {
  it.each([
    ['https://u:pwd-s3cr3t@proxy.internal:3128', 'only http:// proxy URLs are supported, not https://;'],
    // http:// forgotten: "usr-s3cr3t:" reads as a scheme, and must not be echoed as one.
    ['usr-s3cr3t:pwd-s3cr3t@proxy.internal:3128', 'only http:// proxy URLs are supported; expected http://[user:password@]host[:port]'],
    ['http://pwd-s3cr3t@', 'not a valid URL'],
    ['http://usr:pwd-s3cr3t%E0%A4%A@proxy.internal:3128', 'not valid percent-encoding'],
  ])('refuses %j without repeating it', (text, message) => {
    expect(() => parseEgressProxyUrl(text)).toThrow(message);
    expect(() => createProxyEgress({ proxyUrl: text, allow: [] })).toThrow(/^LORE_EGRESS_PROXY: /);
    expect(() => createProxyEgress({ proxyUrl: text, allow: [] })).not.toThrow(/s3cr3t/);
  });

  it('reads blank as no proxy', () => {
    expect(parseEgressProxyUrl(undefined)).toBeUndefined();
    expect(parseEgressProxyUrl('  ')).toBeUndefined();
    expect(parseEgressProxyUrl(' http://proxy.internal:3128 ')).toBe('http://proxy.internal:3128');
  });

  it('openEgress goes through the proxy when one is set, and directly otherwise', async () => {
    const server = await serve();
    const url = `http://127.0.0.1:${server.port}/`;
    await openEgress({ allow: ['127.0.0.1'], proxyUrl: proxy.url }).request({ method: 'GET', url });
    expect(proxy.tunnels).toHaveLength(1);
    await openEgress({ allow: ['127.0.0.1'], proxyUrl: ' ' }).request({ method: 'GET', url });
    await openEgress({ allow: ['127.0.0.1'] }).request({ method: 'GET', url });
    expect(proxy.tunnels).toHaveLength(1);
    expect(server.seen).toHaveLength(3);
  });
});
