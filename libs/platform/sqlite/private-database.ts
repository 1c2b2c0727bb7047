import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';

/**
 * Opens a SQLite file readable and writable by its owner only (0600): created with that mode
 * before SQLite opens it (better-sqlite3 has no mode option), tightened if an older version
 * left it wider. SQLite creates `-wal` and `-shm` with the main file's mode. Shared by the
 * embedded event store and document store, whose files hold sealed data and wrapped keys.
 */
export function openPrivateDatabase(path: string): Database.Database {
  if (path !== '' && path !== ':memory:' && !path.startsWith('file:')) {
    closeSync(openSync(path, 'a', 0o600));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenFileMode(file);
  }
  return new Database(path);
}

function tightenFileMode(file: string): void {
  try {
    if ((statSync(file).mode & 0o777) !== 0o600) chmodSync(file, 0o600);
  } catch (error) {
    // Absent (-wal/-shm before the first write) is fine; not ours to change (EPERM) is left as it is.
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'EPERM') throw error;
  }
}
