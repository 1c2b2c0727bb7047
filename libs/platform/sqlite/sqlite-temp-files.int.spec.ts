import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions, REPO_ROOT } from '@lore/platform/testing';

/**
 * SQLite writes statement journals, sorts and temporary indexes to files in its temp directory
 * unless told to keep them in memory. Those files hold page images of the store (sealed data,
 * rows being deleted) and are unlinked, not wiped; writing them also cost ~11 page writes an
 * append. openPrivateDatabase keeps them in memory, except around statements that change many
 * rows in a transaction (withTempFilesOnDisk), whose journal in memory would have no bound.
 */
describe('SQLite temporary files of the embedded stores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-temp-files-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('stay in memory for read-model batches under text and sort indexes, and go to disk for a bulk delete', async () => {
    const outdir = join(REPO_ROOT, 'node_modules', '.cache', `lore-temp-files-${process.pid}`);
    await build({ ...bundleOptions(), entryPoints: { fixture: 'libs/platform/documents/sqlite/temp-files.fixture.ts' }, outdir, logLevel: 'silent' });
    const sqliteTemp = join(dir, 'sqlite-temp');
    mkdirSync(sqliteTemp);
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
      // Files seen passing through SQLite's temp directory in each phase.
      const seen = JSON.parse(output) as { batches: number; bulkDelete: number; left: number };
      expect(seen.batches).toBe(0);
      expect(seen.bulkDelete).toBeGreaterThan(0);
      expect(seen.left).toBe(0);
    } finally {
      rmSync(outdir, { recursive: true, force: true });
    }
  });
});
