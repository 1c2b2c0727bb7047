import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@lore/platform/runtime';
import { openContextStores } from './context-stores';

const meta = { contentType: 'text/plain', name: 'a.txt', workspaceId: 'ws_1', createdAt: new Date('2026-01-01T00:00:00Z') };

describe("a context's blob store (embedded)", () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-context-blobs-'));
  const config = loadConfig({ DATA_DIR: dataDir, LORE_MASTER_KEY: '' });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is opened on first use, under DATA_DIR/<context>/originals, and keeps its blobs across a restart', async () => {
    const originals = join(dataDir, 'knowledge', 'originals');
    const stores = await openContextStores(config, 'knowledge');
    try {
      expect(existsSync(originals)).toBe(false); // contexts that keep no files get no directory
      await stores.blobs.put('cnt_1', Buffer.from('the original'), meta);
      expect(readdirSync(originals)).toEqual(['cnt_1.blob']);
    } finally {
      await stores.close();
    }
    const reopened = await openContextStores(config, 'knowledge');
    try {
      expect((await reopened.blobs.get('cnt_1'))?.bytes.toString()).toBe('the original');
    } finally {
      await reopened.close();
    }
  });
});
