import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Points SQLite's temporary files (the bulk deletes' statement journals, see
 * withTempFilesOnDisk) at `DATA_DIR/.sqlite-tmp`, private to the service's user, unless the
 * operator chose a directory with SQLITE_TMPDIR. SQLite's default, /var/tmp, is shared and may be
 * another volume, and those files hold page images of the rows being deleted (unlinked, not
 * wiped). SQLite reads the variable once, when the process opens its first database: each
 * process entry (the standalone app, a service, the tools that write) calls this right after
 * loading its configuration, before any store opens. Every store of a process is under one DATA_DIR.
 */
export function keepSqliteTempFilesIn(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = env['SQLITE_TMPDIR'];
  if (chosen !== undefined && chosen !== '') return chosen;
  const dir = join(dataDir, '.sqlite-tmp');
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  env['SQLITE_TMPDIR'] = dir;
  return dir;
}
