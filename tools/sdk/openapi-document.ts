import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startStandalone } from '../../apps/standalone/bootstrap';

/**
 * The OpenAPI document the current code serves at `/openapi.json`, as the SDK generators read
 * it. The document is built from the routes' zod schemas when the gateway registers them, so
 * it is taken from a standalone Lore started in this process on a loopback port and a
 * throw-away DATA_DIR, then stopped. The environment is fixed rather than inherited: limits
 * such as MEMORY_MAX_CHARS appear in the schemas, and the document must not depend on the
 * shell it is generated in.
 */
export async function currentOpenApiDocument(): Promise<unknown> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lore-openapi-'));
  const env = { PORT: '0', HOST: '127.0.0.1', DATA_DIR: dataDir, LOG_LEVEL: 'silent', AUTH_JWT_SECRET: 'openapi-document', LORE_MASTER_KEY: '' };
  const running = await startStandalone(env);
  try {
    const response = await fetch(`${running.url}/openapi.json`);
    if (response.status !== 200) throw new Error(`/openapi.json answered ${response.status}`);
    return await response.json();
  } finally {
    await running.app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Run as a bundle (tools/sdk/generate-typescript.mjs): prints the document on stdout. */
if (require.main === module) {
  currentOpenApiDocument().then(
    (document) => {
      // Exits once stdout has taken everything (a pipe is written asynchronously): the
      // standalone app may leave pools and timers behind that would keep the process alive.
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`, () => process.exit(0));
    },
    (error: unknown) => {
      process.stderr.write(`openapi-document: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
      process.exit(1);
    },
  );
}
