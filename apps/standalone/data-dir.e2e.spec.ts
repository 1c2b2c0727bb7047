import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStandalone } from './bootstrap';

/** Issue 16: a first start with a DATA_DIR that does not exist yet creates it, private to the service's user. */
describe('standalone start with a missing DATA_DIR', () => {
  const root = mkdtempSync(join(tmpdir(), 'lore-data-dir-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('creates DATA_DIR and its missing parents with mode 0700, and serves', async () => {
    const dataDir = join(root, 'not', 'yet', 'there');
    const running = await startStandalone({ ...process.env, PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, AUTH_JWT_SECRET: 'data-dir-secret', LOG_LEVEL: 'silent', LORE_MASTER_KEY: '' });
    try {
      expect((await fetch(`${running.url}/ready`)).status).toBe(200);
      for (const dir of [join(root, 'not'), join(root, 'not', 'yet'), dataDir]) expect({ dir, mode: statSync(dir).mode & 0o777 }).toEqual({ dir, mode: 0o700 });
      expect(statSync(join(dataDir, 'master.key')).mode & 0o777).toBe(0o600);
    } finally {
      await running.app.close();
    }
  });
});
