import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './bundle-options';

const STAMP = join(REPO_ROOT, 'dist', '.built-for-test-run');
/** Longest wait for another worker's build: a few builds' time on a slow machine. */
const WAIT_MS = 5 * 60_000;

/**
 * `tools/build.mjs` (what `npm run build` runs) once per jest run, for the suites that spawn
 * dist/ bundles. With several workers, suites building on their own would rewrite dist/ under
 * each other's running processes, and each build costs seconds. The run is named by
 * `tools/jest/global-setup.cjs`; without a name (a config without it) every call builds.
 * Workers of a run take turns through a lock file named after the run, so a lock left by an
 * earlier, killed run never matters; a wait is bounded, so a worker that died holding the lock
 * fails the suites behind it instead of hanging the run.
 */
export function buildDistOnce(): void {
  const run = process.env['LORE_TEST_RUN_ID'];
  if (run === undefined) return build();
  if (stampOf() === run) return;
  mkdirSync(join(REPO_ROOT, 'tmp'), { recursive: true });
  const lock = join(REPO_ROOT, 'tmp', `test-build-${run}.lock`);
  acquire(lock);
  try {
    if (stampOf() === run) return;
    build();
    writeFileSync(STAMP, run);
  } finally {
    unlinkSync(lock);
  }
}

function build(): void {
  execFileSync(process.execPath, ['tools/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
}

function stampOf(): string | undefined {
  try {
    return readFileSync(STAMP, 'utf8');
  } catch {
    return undefined;
  }
}

/** Creates the lock file (only one process can), waiting while another worker of the run holds it. */
function acquire(lock: string): void {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx'));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (Date.now() > deadline) throw new Error(`another jest worker held ${lock} for more than ${WAIT_MS / 60_000} minutes (building dist/); remove it if no build is running`);
    // Synchronous, like the build it waits for.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}
