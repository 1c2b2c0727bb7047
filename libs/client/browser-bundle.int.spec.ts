import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(__dirname, '..', '..');

/**
 * `@lore/client` runs in browsers: bundled for the browser platform (no Node built-ins
 * available), the client core and its one dependency build, and nothing is left to require.
 */
describe('@lore/client in a browser bundle', () => {
  it('bundles for the browser with nothing external', async () => {
    const result = await build({
      absWorkingDir: ROOT,
      entryPoints: ['libs/client/index.ts'],
      tsconfig: 'tsconfig.base.json',
      bundle: true,
      platform: 'browser',
      format: 'esm',
      target: 'es2022',
      write: false,
      metafile: true,
      logLevel: 'silent',
    });
    const externals = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
    expect(externals).toEqual([]);
    expect(Object.keys(result.metafile.inputs).filter((input) => input.includes('node_modules')).map((input) => input.split('node_modules/')[1]?.split('/')[0])).toEqual(['openapi-fetch']);
  });
});
