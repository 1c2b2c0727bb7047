import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
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
  const root = join(__dirname, '..', '..', '..');
  const { build } = await import('esbuild');
  const result = await build({
    entryPoints: [source],
    outfile: 'extraction-worker.js',
    write: false,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    packages: 'external',
    tsconfig: join(root, 'tsconfig.base.json'),
    absWorkingDir: root,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  // Inside the repository's node_modules, so that the bundle's `require`s of packages resolve;
  // named by its content, so that test processes share one file per version of the sources.
  // Written to a temporary name and renamed: processes building it at once never see half a file.
  const dir = join(root, 'node_modules', '.cache', 'lore-extraction');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `extraction-worker-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`);
  if (!existsSync(outfile)) {
    const partial = `${outfile}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, outfile);
  }
  return outfile;
}
