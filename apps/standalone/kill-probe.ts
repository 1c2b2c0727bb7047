import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions, REPO_ROOT, workerEntryPoints } from '@lore/platform/testing';

/**
 * Runs a kill probe (tools/probes/*.mjs) against a standalone bundle built into a directory of
 * its own, so that a probe suite never races the other suites' builds of dist/; resolves with
 * the probe's output, rejects with it when the probe exits non-zero.
 */
export async function runKillProbe(script: string, env: Record<string, string>, timeoutMs: number): Promise<string> {
  const outdir = join(REPO_ROOT, 'dist', `probe-${process.pid}-${script.replace(/\W+/g, '-')}`);
  try {
    await build({ ...bundleOptions(), entryPoints: { standalone: join(REPO_ROOT, 'apps/standalone/main.ts'), ...workerEntryPoints() }, outdir, logLevel: 'silent' });
    return await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [script],
        { cwd: REPO_ROOT, env: { ...process.env, PROBE_ENTRY: join(outdir, 'standalone.js'), ...env }, timeout: timeoutMs },
        (error, stdout, stderr) => (error ? reject(new Error(`${error.message}\n${stdout}\n${stderr}`)) : resolve(stdout)),
      );
    });
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
