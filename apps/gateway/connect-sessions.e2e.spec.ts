import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describeWithServer } from '@lore/platform/testing';
import { connectTestEnv, describeConnectSessions, freePort, startOAuthAuthorizationServer, WEBHOOK_TEST_ENV, type LoreUnderTest, type OAuthAuthorizationServer } from '@lore/gateway/e2e';
import { startDistributedTopology, type DistributedTopology } from './distributed-topology.fixture';

const JWT_SECRET = 'connect-distributed-e2e-secret';

/** Every file under a folder, read whole (SQLite files and their WAL included). */
function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Connect sessions against the gateway and every context as separate processes over real NATS,
 * with a local OAuth 2.0 authorization server on loopback (LORE_EGRESS_ALLOW=127.0.0.1). Its own
 * Lore: the health check runs every 300 ms here, which the shared suites must not see. Logs
 * at debug level and every file of DATA_DIR are then searched for the secrets of the flow.
 */
describeWithServer('NATS_URL', 'connect sessions in the distributed topology', (natsUrl) => {
  let topology: DistributedTopology;
  let oauth: OAuthAuthorizationServer;
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };
  const logs: string[] = [];

  beforeAll(async () => {
    oauth = await startOAuthAuthorizationServer();
    const port = await freePort();
    Object.assign(lore, { url: `http://127.0.0.1:${port}` });
    topology = await startDistributedTopology({
      natsUrl,
      subjectPrefix: `e2econnect${process.pid}`,
      port,
      stdout: 'pipe',
      env: { AUTH_JWT_SECRET: JWT_SECRET, LORE_EGRESS_ALLOW: '127.0.0.1', LOG_LEVEL: 'debug', ...WEBHOOK_TEST_ENV, ...connectTestEnv(oauth, lore.url) },
    });
    topology.process.stdout?.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  }, 90_000);
  afterAll(async () => {
    await topology?.stop();
    await oauth?.close();
  });

  describeConnectSessions(() => lore, () => oauth);

  // After the flows above (a describe block runs after the ones declared before it).
  describe('afterwards', () => {
    it('leaves no code, token, verifier or client secret in the logs or in any file of DATA_DIR', () => {
      expect(logs.join('').length).toBeGreaterThan(0);
      expect(oauth.secrets().length).toBeGreaterThan(20);
      const stored = filesUnder(topology.dataDir).map((file) => readFileSync(file).toString('latin1'));
      for (const value of oauth.secrets()) {
        expect({ value, inLogs: logs.join('').includes(value), onDisk: stored.some((text) => text.includes(value)) }).toEqual({ value, inLogs: false, onDisk: false });
      }
    });
  });
});
