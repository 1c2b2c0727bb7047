import { execFileSync } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './bundle-options';

const STAMP = join(REPO_ROOT, 'dist', '.built-for-test-run');
const LOCK = join(REPO_ROOT, 'tmp', 'test-build.lock');

/**
 * `tools/build.mjs` (what `npm run build` runs) once per jest run, for the suites that spawn
 * dist/ bundles. With several workers, suites building on their own would rewrite dist/ under
 * each other's running processes, and each build costs seconds. The run is named by
 * `tools/jest/global-setup.cjs`; without a name (a config without it) every call builds.
 * Workers take turns through a lock file holding the builder's pid; a lock whose process is
 * gone (a killed worker) is taken over.
 */
export function buildDistOnce(): void {
  const run = process.env['LORE_TEST_RUN_ID'];
  if (run !== undefined && stampOf() === run) return;
  acquireLock();
  try {
    if (run !== undefined && stampOf() === run) return;
    execFileSync(process.execPath, ['tools/build.mjs'], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (run !== undefined) writeFileSync(STAMP, run);
  } finally {
    unlinkSync(LOCK);
  }
}

function stampOf(): string | undefined {
  try {
    return readFileSync(STAMP, 'utf8');
  } catch {
    return undefined;
  }
}

function acquireLock(): void {
  mkdirSync(join(REPO_ROOT, 'tmp'), { recursive: true });
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    if (!holderAlive()) {
      try {
        unlinkSync(LOCK);
      } catch {
        // Another worker took it over first.
      }
      continue;
    }
    // Synchronous, like the build it waits for.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 200);
  }
}

/** Whether the lock's pid is a live process; a lock still being written (empty) counts as held. */
function holderAlive(): boolean {
  let pid: number;
  try {
    const text = readFileSync(LOCK, 'utf8');
    if (text === '') return true;
    pid = Number(text);
  } catch {
    return true; // gone meanwhile: the next open decides
  }
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
