import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eventsOf } from '@lore/platform/event-store/contract';
import { openSqliteEventStore, type SqliteEventStore } from './sqlite-event-store.adapter';

const modeOf = (file: string): number => statSync(file).mode & 0o777;

/** Event logs hold sealed data and metadata: readable by the service's user only. */
describe('SqliteEventStore file permissions', () => {
  let dir: string;
  let path: string;
  let store: SqliteEventStore | undefined;
  let umask: number;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-sqlite-mode-'));
    path = join(dir, 'events.db');
    // A common, permissive umask: without care SQLite would create 0644 files.
    umask = process.umask(0o022);
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the database, its WAL and its shared-memory file with mode 0600', async () => {
    store = openSqliteEventStore({ path });
    await store.append('order-1', eventsOf(2), 'no_stream');
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect(existsSync(file)).toBe(true);
      expect({ file, mode: modeOf(file).toString(8) }).toEqual({ file, mode: '600' });
    }
  });

  it('tightens a database file an older version created with a wider mode', async () => {
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    store = openSqliteEventStore({ path });
    await store.append('order-1', eventsOf(1), 'no_stream');
    expect(modeOf(path).toString(8)).toBe('600');
    expect(modeOf(`${path}-wal`).toString(8)).toBe('600');
  });
});
