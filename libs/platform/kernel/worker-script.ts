import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { AppError } from './errors';

/** The scripts Lore runs in worker threads and child processes, by bundle name (tools/worker-entries.json: name → entry source). */
export type WorkerName = 'extraction-worker' | 'event-store-writer' | 'json-body-reader';

const scripts = new Map<WorkerName, Promise<string>>();

/**
 * The file a worker thread or reader process runs. In the bundle it is `dist/<name>.js`, beside the app
 * (tools/build.mjs builds every entry of tools/worker-entries.json). Running from the TypeScript
 * sources (jest, where @swc compiles in memory and neither a thread nor a child can load .ts) it is
 * bundled once per process from its entry with esbuild, a devDependency present wherever the
 * sources run, with the options tools/build.mjs uses.
 */
export function workerScript(name: WorkerName): Promise<string> {
  let script = scripts.get(name);
  if (script === undefined) {
    script = locate(name);
    scripts.set(name, script);
  }
  return script;
}

async function locate(name: WorkerName): Promise<string> {
  const bundled = join(__dirname, `${name}.js`);
  if (existsSync(bundled)) return bundled;
  // From the sources, this file is libs/platform/kernel/worker-script.ts.
  const root = join(__dirname, '..', '..', '..');
  const entries = join(root, 'tools', 'worker-entries.json');
  if (!existsSync(join(__dirname, 'worker-script.ts')) || !existsSync(entries)) {
    throw new AppError('internal', `${bundled} is missing: build Lore with tools/build.mjs, which bundles its worker scripts beside the app`);
  }
  const source = (JSON.parse(readFileSync(entries, 'utf8')) as Record<WorkerName, string>)[name];
  const options = JSON.parse(readFileSync(join(root, 'tools', 'bundle-options.json'), 'utf8')) as Record<string, unknown>;
  const { build } = await import('esbuild');
  const result = await build({ ...options, entryPoints: [join(root, source)], outfile: `${name}.js`, write: false, absWorkingDir: root, logLevel: 'silent' });
  const code = result.outputFiles[0]?.contents ?? new Uint8Array();
  // Inside the repository's node_modules, so that the bundle's `require`s of packages resolve;
  // named by its content, so that test processes share one file per version of the sources.
  // Written to a temporary name and renamed: processes building it at once never see half a file.
  const dir = join(root, 'node_modules', '.cache', 'lore-workers');
  mkdirSync(dir, { recursive: true });
  const outfile = join(dir, `${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.js`);
  if (!existsSync(outfile)) {
    const partial = `${outfile}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, outfile);
  }
  return outfile;
}
