import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BlobMeta } from '@lore/platform/blobs/port';
import { openFileBlobStore } from './file-blob-store.adapter';

const meta: BlobMeta = { contentType: 'text/plain', name: 'a.txt', workspaceId: 'ws_1', createdAt: new Date('2026-01-01T00:00:00Z') };

/** A pid that is certainly not running: a child that has exited. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
  return Number(child.stdout);
}

describe('the embedded blob store on disk', () => {
  let root: string;
  let dir: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'lore-blobs-'));
    dir = join(root, 'knowledge', 'originals');
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('keeps the directory (0700) and each blob file (0600) private, and leaves no temporary file behind', async () => {
    const store = openFileBlobStore({ dir });
    await Promise.all(['a', 'b', 'c'].map((id) => store.put(id, Buffer.from(id), meta)));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(readdirSync(dir).sort()).toEqual(['a.blob', 'b.blob', 'c.blob']);
    for (const name of readdirSync(dir)) expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    await store.close();
  });

  it('removes the temporary files of a writer that died before its rename, and keeps a live writer\'s', async () => {
    openFileBlobStore({ dir });
    const crashed = `.cnt_1.${deadPid()}.abcdef.tmp`;
    const live = `.cnt_2.${process.pid}.abcdef.tmp`;
    writeFileSync(join(dir, crashed), 'half a file');
    writeFileSync(join(dir, live), 'being written');
    openFileBlobStore({ dir });
    expect(readdirSync(dir)).toEqual([live]);
  });

  it('refuses a blob file cut short instead of serving fewer bytes', async () => {
    const store = openFileBlobStore({ dir });
    await store.put('cnt_1', Buffer.alloc(1000, 7), meta);
    truncateSync(join(dir, 'cnt_1.blob'), statSync(join(dir, 'cnt_1.blob')).size - 10);
    await expect(store.get('cnt_1')).rejects.toThrow(/990 bytes of a 1000-byte blob/);
  });

  it('refuses a file that is not a blob file', async () => {
    const store = openFileBlobStore({ dir });
    writeFileSync(join(dir, 'cnt_1.blob'), 'some other file');
    await expect(store.get('cnt_1')).rejects.toThrow(/not a blob file/);
  });

  it('refuses to work once closed', async () => {
    const store = openFileBlobStore({ dir });
    await store.close();
    await expect(store.get('cnt_1')).rejects.toThrow(/closed/);
    await expect(store.idsCreatedBefore(new Date(), 1)).rejects.toThrow(/closed/);
  });
});
