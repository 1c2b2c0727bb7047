import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The repository root: the nearest directory above this file holding nx.json. */
export function repoRoot(from: string = __dirname): string {
  let dir = resolve(from);
  while (!existsSync(join(dir, 'nx.json'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no nx.json above ${from}`);
    dir = parent;
  }
  return dir;
}

/** MODELS_DIR when set, else `../shared/models` next to the repository (where CI has it). */
export function modelsDirForTests(): string {
  const fromEnv = process.env.MODELS_DIR?.trim();
  return fromEnv !== undefined && fromEnv !== '' ? resolve(fromEnv) : resolve(repoRoot(), '../shared/models');
}

/**
 * Suites that need the embedding model. Without the models directory they are skipped, loudly,
 * naming MODELS_DIR — except under CI=true, where the directory is provided and its absence
 * is a failure, never a silent skip (ARCHITECTURE §3.8).
 */
export function describeWithModels(what: string, body: (modelsDir: string) => void): void {
  const dir = modelsDirForTests();
  if (!existsSync(dir)) {
    const message = `no models directory at ${dir}: set MODELS_DIR to a directory holding Xenova/all-MiniLM-L6-v2`;
    if (process.env.CI === 'true') {
      describe(what, () => {
        it('has the models directory (CI=true: required)', () => {
          throw new Error(message);
        });
      });
      return;
    }
    process.stderr.write(`\n[lore] SKIPPING ${what} suite: ${message}.\n`);
    describe.skip(`${what} (needs MODELS_DIR)`, () => {
      it('is skipped', () => undefined);
    });
    return;
  }
  describe(what, () => body(dir));
}
