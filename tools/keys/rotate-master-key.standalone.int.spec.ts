import { call, mintJwt } from '@lore/gateway/e2e';
import { startStandalone } from '../../apps/standalone/bootstrap';
import { keyFile, loreEnv, removeDataDir, run, tempDataDir } from './rotation.fixture';

const JWT_SECRET = 'rotate-secret';

/** The rotation seen from outside: what Lore served before it, it serves after, API keys included. */
describe('npm run keys:rotate-master, then Lore (standalone)', () => {
  const dataDir = tempDataDir();
  const env = loreEnv(dataDir, { PORT: '0', HOST: '127.0.0.1', AUTH_JWT_SECRET: JWT_SECRET });

  afterAll(() => {
    removeDataDir(dataDir);
  });

  it('serves the memories sealed before the rotation, authenticates the API keys made before it, and refuses the old key', async () => {
    const token = await mintJwt(JWT_SECRET, { sub: 'rotator', workspace_id: 'rotate-ws' });
    let lore = await startStandalone(env);
    let apiKey = '';
    try {
      for (const memory of ['one', 'two']) expect((await call({ url: lore.url, jwtSecret: JWT_SECRET }, 'POST', '/api/v1/memories', { token, body: { memory } })).status).toBe(201);
      const created = await call({ url: lore.url, jwtSecret: JWT_SECRET }, 'POST', '/api/v1/api-keys', { token, body: { label: 'reader', permissions: ['memories:read'] } });
      expect(created.status).toBe(201);
      apiKey = (created.body as { key: string }).key;
    } finally {
      await lore.app.close();
    }
    const old = keyFile(dataDir);

    const rotated = await run(['--generate'], env);
    if (rotated.code !== 0) throw new Error(rotated.err);

    lore = await startStandalone(env);
    try {
      const listed = await call({ url: lore.url, jwtSecret: JWT_SECRET }, 'GET', '/api/v1/memories?user_id=rotator', { token: apiKey });
      expect(listed.status).toBe(200);
      expect((listed.body as { data: Array<{ memory: string }> }).data.map((m) => m.memory).sort()).toEqual(['one', 'two']);
    } finally {
      await lore.app.close();
    }
    await expect(startStandalone({ ...env, LORE_MASTER_KEY: old.toString('base64') })).rejects.toThrow(/wrapped by master key version 2/);
  });
});
