import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from './sqlite-document-store.adapter';

/** A fresh database file per test for the file-backed suites: stores on it, a raw connection, and every byte SQLite keeps for it. */
export function useSqliteFile(prefix: string) {
  let dir = '';
  const state = { path: '' };
  const open: DocumentStore[] = [];

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), prefix));
    state.path = join(dir, 'read-models.db');
  });
  afterEach(async () => {
    for (const store of open.splice(0)) await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  return {
    get path(): string {
      return state.path;
    },
    openStore: (durability?: 'full' | 'normal'): DocumentStore => {
      const store = openSqliteDocumentStore(durability ? { path: state.path, durability } : { path: state.path });
      open.push(store);
      return store;
    },
    withRaw: <R>(use: (db: Database.Database) => R): R => {
      const raw = new Database(state.path);
      try {
        return use(raw);
      } finally {
        raw.close();
      }
    },
    /** The main file, the WAL and the shared-memory index. */
    fileBytes: (): Buffer =>
      Buffer.concat([state.path, `${state.path}-wal`, `${state.path}-shm`].filter((file) => existsSync(file)).map((file) => readFileSync(file))),
  };
}
