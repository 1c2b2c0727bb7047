import { build } from 'esbuild';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const STORAGE_DRIVERS = ['better-sqlite3', 'mongodb', '@eventstore/db-client'];

/**
 * The gateway process opens no store, so its bundle must not even load a storage driver:
 * bundle apps/gateway/main.ts as the build does and read what it would require at run time.
 */
describe('the gateway bundle', () => {
  async function externalImports(entry: string): Promise<string[]> {
    const result = await build({
      entryPoints: [join(ROOT, entry)],
      bundle: true,
      write: false,
      outdir: join(ROOT, 'dist', 'bundle-check'),
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      packages: 'external',
      tsconfig: join(ROOT, 'tsconfig.base.json'),
      metafile: true,
      logLevel: 'silent',
    });
    return Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((i) => i.external).map((i) => i.path));
  }

  it('requires no storage driver', async () => {
    const imports = await externalImports('apps/gateway/main.ts');
    expect(imports).toEqual(expect.arrayContaining(['fastify', '@nestjs/core']));
    expect(imports.filter((path) => STORAGE_DRIVERS.some((driver) => path === driver || path.startsWith(`${driver}/`)))).toEqual([]);
  });

  it('is a test that can fail: a service bundle does require them', async () => {
    const imports = await externalImports('apps/memory/main.ts');
    expect(imports).toEqual(expect.arrayContaining(['better-sqlite3', 'mongodb', '@eventstore/db-client']));
  });
});
