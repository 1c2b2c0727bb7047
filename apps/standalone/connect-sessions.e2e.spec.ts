import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connectTestEnv, describeConnectSessions, freePort, startOAuthAuthorizationServer, WEBHOOK_TEST_ENV, type LoreUnderTest, type OAuthAuthorizationServer } from '@lore/gateway/e2e';
import { startStandalone } from './bootstrap';

const JWT_SECRET = 'connect-standalone-e2e-secret';

/** Connect sessions against the standalone app, with a local OAuth 2.0 authorization server on loopback. Its own Lore: the health check runs every 300 ms here. */
describe('connect sessions in the standalone app', () => {
  let running: Awaited<ReturnType<typeof startStandalone>>;
  let oauth: OAuthAuthorizationServer;
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };

  beforeAll(async () => {
    oauth = await startOAuthAuthorizationServer();
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    running = await startStandalone({
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: mkdtempSync(join(tmpdir(), 'lore-connect-')),
      AUTH_JWT_SECRET: JWT_SECRET,
      LOG_LEVEL: 'silent',
      LORE_MASTER_KEY: '',
      LORE_EGRESS_ALLOW: '127.0.0.1',
      ...WEBHOOK_TEST_ENV,
      ...connectTestEnv(oauth, url),
    });
    Object.assign(lore, { url: running.url });
  });
  afterAll(async () => {
    await running?.app.close();
    await oauth?.close();
  });

  describeConnectSessions(() => lore, () => oauth);
});
