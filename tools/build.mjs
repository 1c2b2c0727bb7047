// Bundles each app's entry point (every apps/<name>/main.ts, so a new context's service
// main is built without touching this file) and the tools that run against the stores
// into dist/. Dependencies stay external: they come from node_modules at run time.
import { build } from 'esbuild';
import { existsSync, readdirSync } from 'node:fs';

const apps = Object.fromEntries(
  readdirSync('apps', { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`apps/${entry.name}/main.ts`))
    .map((entry) => [entry.name, `apps/${entry.name}/main.ts`]),
);

await build({
  entryPoints: { ...apps, 'rebuild-projections': 'tools/rebuild-projections.ts', distributed: 'tools/distributed.ts' },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  packages: 'external',
  sourcemap: true,
  tsconfig: 'tsconfig.base.json',
  logLevel: 'warning',
});
