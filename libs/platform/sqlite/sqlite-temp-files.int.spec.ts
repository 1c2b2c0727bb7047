import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, watch } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions, REPO_ROOT } from '@lore/platform/testing';

/**
 * SQLite writes statement journals, sorts and temporary indexes to files in its temp directory
 * unless told to keep them in memory. Those files hold page images of the store (sealed data,
 * rows being deleted) and are unlinked, not wiped; writing them also cost ~11 page writes an
 * append. openPrivateDatabase keeps them in memory: this runs the read-model writes of
 * conversation appends with SQLite's temp directory watched, and expects no file in it.
 */
describe('SQLite temporary files of the embedded stores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-temp-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('are never created: read-model batches under text and sort indexes stay in memory', async () => {
    const outdir = join(REPO_ROOT, 'node_modules', '.cache', `lore-temp-files-${process.pid}`);
    await build({ ...bundleOptions(), entryPoints: { fixture: 'libs/platform/documents/sqlite/temp-files.fixture.ts' }, outdir, logLevel: 'silent' });
    const sqliteTemp = join(dir, 'sqlite-temp');
    mkdirSync(sqliteTemp);
    const created: string[] = [];
    // SQLite unlinks a temp file as soon as it opens it: only a watch sees it pass.
    const watcher = watch(sqliteTemp, (_event, name) => void created.push(String(name)));
    try {
      const child = spawn(process.execPath, [join(outdir, 'fixture.js'), join(dir, 'read-models.db')], {
        env: { ...process.env, SQLITE_TMPDIR: sqliteTemp },
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => void (output += chunk.toString()));
      const code = await new Promise<number | null>((resolve, reject) => {
        child.on('exit', resolve);
        child.on('error', reject);
      });
      expect(code).toBe(0);
      expect(output).toBe('done\n');
      // Let inotify events of the last batch arrive.
      await new Promise((resolve) => setTimeout(resolve, 100));
    } finally {
      watcher.close();
      rmSync(outdir, { recursive: true, force: true });
    }
    expect(created).toEqual([]);
  });
});
