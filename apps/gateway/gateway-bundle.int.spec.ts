import { join } from 'node:path';
import { build } from 'esbuild';
import { bundleOptions, REPO_ROOT as ROOT } from '@lore/platform/testing';

const STORAGE_DRIVERS = ['better-sqlite3', 'mongodb', '@eventstore/db-client', '@qdrant/js-client-rest', 'sqlite-vec'];
/** Sources of the store adapters and of the host that opens them. */
const STORE_CODE = /libs\/platform\/(?:[a-z-]+\/(?:sqlite|mongo|esdb|qdrant|files)|host|sqlite)\//;

/**
 * The gateway process opens no store, so its bundle must not even load a storage driver:
 * bundle apps/gateway/main.ts as the build does and read what it would require at run time.
 */
describe('the gateway bundle', () => {
  async function bundle(entry: string): Promise<{ imports: string[]; inputs: string[] }> {
    const result = await build({
      ...bundleOptions(),
      entryPoints: [join(ROOT, entry)],
      write: false,
      outdir: join(ROOT, 'dist', 'bundle-check'),
      metafile: true,
      logLevel: 'silent',
    });
    const imports = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
    return { imports, inputs: Object.keys(result.metafile.inputs) };
  }

  it('requires no storage driver and holds no store adapter or host', async () => {
    const { imports, inputs } = await bundle('apps/gateway/main.ts');
    expect(imports).toEqual(expect.arrayContaining(['fastify', '@nestjs/core']));
    expect(imports.filter((path) => STORAGE_DRIVERS.some((driver) => path === driver || path.startsWith(`${driver}/`)))).toEqual([]);
    expect(inputs.filter((path) => STORE_CODE.test(path))).toEqual([]);
  });

  it('is a test that can fail: a service bundle does require and hold them', async () => {
    const { imports, inputs } = await bundle('apps/memory/main.ts');
    expect(imports).toEqual(expect.arrayContaining(['better-sqlite3', 'mongodb', '@eventstore/db-client']));
    expect(inputs.filter((path) => STORE_CODE.test(path)).length).toBeGreaterThan(0);
  });
});
