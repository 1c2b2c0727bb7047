import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions, REPO_ROOT as ROOT } from '@lore/platform/testing';


/**
 * Permanent deletion against a real `kill -9`: tools/probes/kill-during-delete.mjs starts the
 * standalone bundle, fires a burst of DELETEs, kills the process a few milliseconds into it,
 * restarts it on the same files and checks that every acknowledged deletion stayed deleted
 * and that no deleted memory left its key or ciphertext on disk. The bundle is built into a
 * directory of its own, so this suite never races the other suites' builds of dist/.
 */
describe('kill -9 during deletes', () => {
  const outdir = join(ROOT, 'dist', `probe-${process.pid}`);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('leaves every acknowledged deletion deleted and no deleted memory on disk', async () => {
    await build({
      ...bundleOptions(),
      entryPoints: { standalone: join(ROOT, 'apps/standalone/main.ts') },
      outdir,
      logLevel: 'silent',
    });
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['tools/probes/kill-during-delete.mjs'],
        { cwd: ROOT, env: { ...process.env, PROBE_ENTRY: join(outdir, 'standalone.js'), PROBE_ROUNDS: '3', PROBE_MEMORIES: '20' }, timeout: 90_000 },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
      );
    });
    expect(output).toMatch(/3 rounds x 20 memories: .* 0 acknowledged but readable, 0 gone but still on disk/);
  }, 120_000);
});
