import { describeEgressContract } from '@lore/platform/egress/contract';
import { startConnectProxy } from './connect-proxy.fixture';
import { createProxyEgress } from './proxy-egress';

/** Tunnels opened over the whole suite: the proxy path must have carried the contract's traffic. */
let tunnels = 0;

// Each egress gets a proxy of its own; `cameThrough` then holds the contract to "every
// connection a test server accepted was one this proxy opened", so no request went around it.
describeEgressContract('proxy (HTTP CONNECT)', async (options) => {
  const proxy = await startConnectProxy();
  return {
    egress: createProxyEgress({ ...options, proxyUrl: proxy.url }),
    cameThrough: (peer) => peer.address === '127.0.0.1' && proxy.upstreamPorts.has(peer.port),
    close: async () => {
      tunnels += proxy.tunnels.length;
      await proxy.close();
    },
  };
});

afterAll(() => {
  expect(tunnels).toBeGreaterThan(20);
});
