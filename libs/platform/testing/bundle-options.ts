import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BuildOptions } from 'esbuild';

/** The repository root, where `npm run build` runs. */
export const REPO_ROOT = join(__dirname, '..', '..', '..');

/** The options every Lore bundle is built with (tools/bundle-options.json, also read by tools/build.mjs), rooted at the repository. */
export function bundleOptions(): BuildOptions {
  const options = JSON.parse(readFileSync(join(REPO_ROOT, 'tools', 'bundle-options.json'), 'utf8')) as BuildOptions;
  return { ...options, absWorkingDir: REPO_ROOT };
}

/** The worker threads' entries (tools/worker-entries.json), for a test's bundle of an app: its threads load from beside it. */
export function workerEntryPoints(): Record<string, string> {
  const entries = JSON.parse(readFileSync(join(REPO_ROOT, 'tools', 'worker-entries.json'), 'utf8')) as Record<string, string>;
  return Object.fromEntries(Object.entries(entries).map(([name, source]) => [name, join(REPO_ROOT, source)]));
}
