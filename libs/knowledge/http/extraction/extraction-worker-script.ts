import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { join } from 'node:path';

import { AppError } from '@lore/platform/kernel';

let script: Promise<string> | undefined;

/**
 * The file the extraction pool's threads run. In the bundle it is dist/extraction-worker.js,
 * beside the app (tools/build.mjs builds it as an entry of its own). Running from the
 * TypeScript sources (jest, where @swc compiles in memory and a worker thread cannot load .ts)
 * it is bundled once per process from extraction.worker.ts with esbuild, a devDependency
 * present wherever the sources run, with the options tools/build.mjs uses.
 */
export function extractionWorkerScript(): Promise<string> {
  script ??= locate();
  return script;
}

async function locate(): Promise<string> {
  const bundled = join(__dirname, 'extraction-worker.js');
  if (existsSync(bundled)) return bundled;
  const source = join(__dirname, 'extraction.worker.ts');
  if (!existsSync(source)) {
    throw new AppError('internal', `${bundled} is missing: build Lore with tools/build.mjs, which bundles the extraction worker beside the app`);
  }
  const root = join(__dirname, '..', '..', '..', '..');
  const { build } = await import('esbuild');
  // Inside the repository's node_modules, so that the bundle's `require`s of packages resolve.
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const outfile = join(mkdtempSync(join(cache, 'lore-extraction-')), 'extraction-worker.js');
  await build({
    entryPoints: [source],
    outfile,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.base.json'),
    absWorkingDir: root,
    logLevel: 'silent',
  });
  return outfile;
}
