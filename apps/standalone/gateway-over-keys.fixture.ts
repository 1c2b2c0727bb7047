import { randomBytes } from 'node:crypto';
import Fastify from 'fastify';
import type { HttpRoute } from '@lore/platform/http';
import { startContext } from '@lore/platform/testing';
import { keysContext } from '@lore/keys/application';
import { keysEdge } from '@lore/keys/http';
import { configureGateway } from '@lore/gateway';

/**
 * The gateway's real authentication, authorization and routing on a Fastify of its own, over
 * the keys service (the API keys routes included) and the test's own `routes`; rate limits off.
 * JWTs are signed with `jwtSecret`, the admin role read from `adminClaim`.
 */
export async function startGatewayOverKeys(routes: readonly HttpRoute[], options: { readonly jwtSecret: string; readonly adminClaim?: string; readonly maxBodyBytes?: number }) {
  const keys = await startContext(keysContext);
  const app = Fastify();
  configureGateway(app, {
    config: {
      auth: { jwtSecret: options.jwtSecret, jwksUrl: undefined, issuer: undefined, audience: undefined, allowNoExp: false, maxLifetimeSeconds: 86_400, adminClaim: options.adminClaim ?? 'roles', adminValue: 'lore-admin' },
      trustProxy: false,
      maxBodyBytes: options.maxBodyBytes ?? 1024 * 1024,
      requestTimeoutMs: 5_000,
      eventsHeartbeatMs: 15_000,
      rateLimits: { caller: { perMinute: 0, burst: 0 }, workspace: { perMinute: 0, burst: 0 }, leaseMs: 0, overrides: new Map() },
    },
    transport: keys.transport,
    feed: keys.feed,
    eventIdSecret: randomBytes(32),
    edges: [{ name: 'keys', routes: keysEdge.routes({}, { log: { warn: () => undefined } }) }, { name: 'test', routes }],
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    url,
    port: (app.server.address() as { port: number }).port,
    async stop() {
      await app.close();
      await keys.stop();
    },
  };
}
