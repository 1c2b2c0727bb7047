#!/usr/bin/env node
/**
 * Computes the Nx project graph and writes Nx's cache of it (.nx/workspace-data), the first
 * step of `npm run lint`.
 *
 * `@nx/enforce-module-boundaries` (the dependency rule, eslint.config.js) never computes the
 * graph: it reads that cache (`readCachedProjectGraph`), and where there is none it prints "No
 * cached ProjectGraph is available. The rule will be skipped." and checks nothing. Nx writes
 * the cache whenever it computes the graph; this does so through the public devkit API, locally
 * (no daemon, no Nx Cloud, no network, no terminal needed: CI=true works), incrementally from
 * the file-map cache it leaves behind, and then reads the graph back exactly as the rule will.
 * A graph with errors (say, two projects of one name) exits non-zero instead of being cached.
 */
import { createRequire } from 'node:module';

process.env.NX_DAEMON ??= 'false';
process.env.NX_NO_CLOUD ??= 'true';
// The cache is the point: `NX_CACHE_PROJECT_GRAPH=false` would have Nx compute and not write it.
delete process.env.NX_CACHE_PROJECT_GRAPH;

// The @nx/devkit the ESLint plugin loads, so both agree on where the cache lives.
const require = createRequire(import.meta.url);
const fromPlugin = createRequire(require.resolve('@nx/eslint-plugin'));
const { createProjectGraphAsync, readCachedProjectGraph } = fromPlugin('@nx/devkit');

try {
  await createProjectGraphAsync({ exitOnError: true, resetDaemonClient: false });
  const graph = readCachedProjectGraph();
  const projects = Object.keys(graph.nodes).length;
  console.log(`Nx project graph: ${projects} projects, cached for @nx/enforce-module-boundaries`);
} catch (error) {
  console.error('Could not compute the Nx project graph, so the dependency rule cannot run:');
  console.error(error);
  process.exit(1);
}
