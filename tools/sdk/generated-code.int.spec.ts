import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const GENERATOR = 'tools/sdk/generate-typescript.mjs';

function check(...args: string[]): { status: number | null; stderr: string } {
  const run = spawnSync(process.execPath, [GENERATOR, '--check', ...args], { cwd: ROOT, encoding: 'utf8', timeout: 120_000 });
  return { status: run.status, stderr: run.stderr };
}

/**
 * No drift: the TypeScript SDK's generated code (libs/client/generated) is what the current
 * API's `/openapi.json` produces. When a route's schema changes, this fails until
 * `npm run sdk:generate` is run and its output committed.
 */
describe('TypeScript SDK generated code', () => {
  it('matches what the current API produces', () => {
    const result = check();
    // The generator's message says which files differ and what to run.
    if (result.status !== 0) throw new Error(result.stderr);
  }, 120_000);

  it('is reported stale when a route schema changes without regeneration', () => {
    const dir = mkdtempSync(join(tmpdir(), 'lore-drift-'));
    try {
      const document = JSON.parse(readFileSync(join(ROOT, 'libs/client/generated/openapi.json'), 'utf8'));
      // As if a route now returned one more field on memories.
      document.components.schemas.MemoryRecord.properties.importance = { type: 'number' };
      const changed = join(dir, 'openapi.json');
      writeFileSync(changed, JSON.stringify(document));
      const result = check('--document', changed);
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('libs/client/generated/openapi.json');
      expect(result.stderr).toContain('libs/client/generated/openapi.ts');
      expect(result.stderr).toContain('npm run sdk:generate');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
