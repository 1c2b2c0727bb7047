// Lore's OpenAPI document as the current code serves it: the standalone bundle is built and
// started on a free loopback port with its data in a temporary directory, `/openapi.json` is
// read, and the process is stopped. The document is built from the gateway's composed routes
// at start-up (libs/gateway/routes/system.routes.ts), so asking the real gateway is the one
// way that cannot miss a route group the gateway adds. It costs about two seconds.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../bench/load.mjs';
import { exited, untilReady } from '../probes/lore-process.mjs';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** Builds dist/ (unless `build` is false) and returns the parsed `/openapi.json` of a standalone Lore started for it. */
export async function fetchOpenApiDocument({ build = true } = {}) {
  if (build) execFileSync(process.execPath, ['tools/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-openapi-'));
  const port = await freePort();
  // Only what the process needs: the document must not depend on this machine's configuration.
  const env = { PATH: process.env.PATH, PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir, MODELS_DIR: join(dataDir, 'models'), LOG_LEVEL: 'silent' };
  const child = spawn(process.execPath, [join(REPO_ROOT, 'dist/standalone.js')], { env, stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    const url = `http://127.0.0.1:${port}`;
    await untilReady(child, url, 600);
    const response = await fetch(`${url}/openapi.json`);
    if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    child.kill('SIGTERM');
    await exited(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}
