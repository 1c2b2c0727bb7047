import { chmodSync, closeSync, openSync, statSync } from 'node:fs';
import Database from 'better-sqlite3';
import { storeCommitCounter } from '@lore/platform/telemetry';

/** The embedded stores, as named in `lore_sqlite_commits_total`. */
export type EmbeddedStore = 'event-store' | 'documents' | 'vectors' | 'feed';

/**
 * Opens a SQLite file readable and writable by its owner only (0600): created with that mode
 * before SQLite opens it (better-sqlite3 has no mode option), tightened if an older version
 * left it wider. SQLite creates `-wal` and `-shm` with the main file's mode. Shared by the
 * embedded stores, whose files hold sealed data and wrapped keys. Every outermost transaction
 * it commits is counted (`lore_sqlite_commits_total{store}`).
 */
export function openPrivateDatabase(path: string, store: EmbeddedStore): Database.Database {
  if (path !== '' && path !== ':memory:' && !path.startsWith('file:')) {
    closeSync(openSync(path, 'a', 0o600));
    for (const file of [path, `${path}-wal`, `${path}-shm`]) tightenFileMode(file);
  }
  const db = new Database(path);
  // Statement journals, sorts and temporary indexes stay in memory: on disk (SQLite's default)
  // a read-model upsert under its text-index triggers wrote ~11 pages an append to files in
  // /var/tmp, and those page images of sealed data and deleted rows outlived the transaction
  // on the disk (unlinked, not wiped). A statement that changes many rows inside a transaction
  // journals every page it changes, without bound: those run in withTempFilesOnDisk.
  db.pragma('temp_store = MEMORY');
  countCommits(db, storeCommitCounter(store));
  return db;
}

/**
 * Runs `work` (a transaction that may change many rows in one statement: a bulk delete, a
 * dropped table) with SQLite's temporary files on disk, as SQLite would by default: in memory,
 * its statement journal would hold a copy of every page the statement changes (under
 * secure_delete, every page it frees too), ~5 KB per deleted document, gigabytes for a large
 * collection. Called outside any transaction (SQLite cannot switch inside one).
 */
export function withTempFilesOnDisk<T>(db: Database.Database, work: () => T): T {
  if (db.inTransaction) throw new Error('withTempFilesOnDisk: called inside a transaction');
  db.pragma('temp_store = FILE');
  try {
    return work();
  } finally {
    db.pragma('temp_store = MEMORY');
  }
}

/** One variant of a transaction function (the default, deferred, immediate or exclusive). */
type Variant = (...args: never[]) => unknown;

/**
 * Wraps `db.transaction` so that each transaction function, in each of its variants, counts a
 * commit when it returns (a throw rolls back: not counted). A transaction run inside another
 * is a savepoint, part of the outer commit, and is not counted.
 */
function countCommits(db: Database.Database, count: () => void): void {
  const begin = db.transaction.bind(db);
  const counted = (variant: Variant): Variant => (...args: never[]): unknown => {
    const outermost = !db.inTransaction;
    const result = variant(...args);
    if (outermost) count();
    return result;
  };
  db.transaction = ((fn: (...args: never[]) => unknown) => {
    const tx = begin(fn);
    return Object.assign(counted(tx), {
      default: counted(tx.default.bind(tx)), deferred: counted(tx.deferred.bind(tx)), immediate: counted(tx.immediate.bind(tx)), exclusive: counted(tx.exclusive.bind(tx)),
    });
  }) as Database.Database['transaction'];
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
