import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions } from '@lore/platform/testing';
import { describeWithModels, repoRoot } from '@lore/platform/embeddings/contract';

/**
 * Closing the provider while its worker runs the model must not take the process down:
 * terminating a thread inside an onnxruntime run aborts Node ("terminate called after throwing
 * an instance of 'Napi::Error'"), so close waits for the run to end. Run in a child process,
 * which is what such an abort would kill.
 */
describeWithModels('closing the local embedding provider during a run', (modelsDir) => {
  const root = repoRoot();
  const outdir = join(root, 'node_modules', '.cache', `lore-embeddings-close-${process.pid}`);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('lets the process live on and exit normally', async () => {
    await build({ ...bundleOptions(), entryPoints: { close: 'libs/platform/embeddings/local/local-embeddings-close.fixture.ts' }, outdir, logLevel: 'silent' });
    const child = spawnSync(process.execPath, [join(outdir, 'close.js')], {
      cwd: outdir,
      env: { ...process.env, MODELS_DIR: modelsDir, DATA_DIR: join(outdir, 'data') },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect({ status: child.status, signal: child.signal, stderr: child.stderr }).toEqual({ status: 0, signal: null, stderr: '' });
    expect(child.stdout).toMatch(/closed while the batch (finished|failed)/);
  }, 90_000);
});
