import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions } from '@lore/platform/testing';
import { describeWithModels, repoRoot } from '@lore/platform/embeddings/contract';

/**
 * The worker must start from an esbuild bundle in which no file sits next to the adapter:
 * bundle an entry that uses the adapter with tools/build.mjs's options (bundle, node20, cjs,
 * packages external) and run it with plain node.
 */
describeWithModels('local embeddings from an esbuild bundle', (modelsDir) => {
  const root = repoRoot();
  // Inside node_modules so that the bundle's external packages resolve as they do from dist/.
  const outdir = join(root, 'node_modules', '.cache', `lore-embeddings-bundle-${process.pid}`);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  it('embeds through the worker when run from the bundle', async () => {
    await build({
      ...bundleOptions(),
      entryPoints: { bundle: 'libs/platform/embeddings/local/local-embeddings.bundle-fixture.ts' },
      outdir,
      sourcemap: true,
      logLevel: 'silent',
    });
    const bundle = join(outdir, 'bundle.js');
    // The package stays external: resolved at run time, not bundled.
    const code = readFileSync(bundle, 'utf8');
    expect(code).toContain('require.resolve("@huggingface/transformers")');
    expect(code).not.toContain('class FileCache');
    const output = execFileSync(process.execPath, [bundle], {
      cwd: outdir,
      env: { ...process.env, MODELS_DIR: modelsDir, DATA_DIR: join(outdir, 'data') },
      encoding: 'utf8',
    });
    expect(JSON.parse(output)).toEqual({
      dimensions: 384,
      norm: expect.closeTo(1, 5),
      tokens: 9,
      source: { kind: 'models_dir', root: modelsDir },
    });
  });
});
