// Bundles each app's entry point (every apps/<name>/main.ts, so a new context's service
// main is built without touching this file) and the tools that run against the stores
// into dist/. Dependencies stay external: they come from node_modules at run time.
import { build } from 'esbuild';
import { existsSync, readdirSync, readFileSync } from 'node:fs';

/** How every Lore bundle is made; the tests that build bundles read the same file. */
const options = JSON.parse(readFileSync(new URL('./bundle-options.json', import.meta.url), 'utf8'));

/** The entries of the scripts Lore runs in worker threads and reader processes (name → source), bundled beside the apps: see `workerScript` in libs/platform/kernel. */
const workers = JSON.parse(readFileSync(new URL('./worker-entries.json', import.meta.url), 'utf8'));

const apps = Object.fromEntries(
  readdirSync('apps', { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && existsSync(`apps/${entry.name}/main.ts`))
    .map((entry) => [entry.name, `apps/${entry.name}/main.ts`]),
);

await build({
  entryPoints: { ...apps, ...workers, 'rebuild-projections': 'tools/rebuild-projections.ts', 'parked-events': 'tools/parked-events.ts', 'rotate-master-key': 'tools/rotate-master-key.ts', audit: 'tools/audit.ts', distributed: 'tools/distributed.ts', 'example-typescript': 'examples/typescript/quickstart.ts' },
  ...options,
  outdir: 'dist',
  sourcemap: true,
  logLevel: 'warning',
});

// The web console (apps/console): a Vite build into dist/console, served by the gateway at /console.
const { build: buildConsole } = await import('vite');
await buildConsole({ configFile: 'apps/console/vite.config.mjs' });
