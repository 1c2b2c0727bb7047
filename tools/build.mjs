// Bundles each app entry point (and the tools that run against the stores) into dist/.
// Dependencies stay external: they come from node_modules at run time.
import { build } from 'esbuild';

const entries = {
  standalone: 'apps/standalone/main.ts',
  gateway: 'apps/gateway/main.ts',
  keys: 'apps/keys/main.ts',
  memory: 'apps/memory/main.ts',
  'rebuild-projections': 'tools/rebuild-projections.ts',
};

await build({
  entryPoints: entries,
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
