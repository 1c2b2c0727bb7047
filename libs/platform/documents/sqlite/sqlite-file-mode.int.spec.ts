import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from './sqlite-document-store.adapter';

const modeOf = (file: string): number => statSync(file).mode & 0o777;

/** Read models and the keyring (wrapped data keys) are readable by the service's user only. */
describe('SQLite document store file permissions', () => {
  let dir: string;
  let store: DocumentStore | undefined;
  let umask: number;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'lore-documents-mode-'));
    // A common, permissive umask: without care SQLite would create 0644 files.
    umask = process.umask(0o022);
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    process.umask(umask);
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['read-models.db', 'keyring.db'])('creates %s, its WAL and its shared-memory file with mode 0600', async (name) => {
    const path = join(dir, name);
    store = openSqliteDocumentStore({ path, durability: name === 'keyring.db' ? 'full' : 'normal' });
    await store.write([{ collection: 'notes', op: 'upsert', doc: { id: 'n1', text: 'hello' } }]);
    for (const file of [path, `${path}-wal`, `${path}-shm`]) {
      expect(existsSync(file)).toBe(true);
      expect({ file, mode: modeOf(file).toString(8) }).toEqual({ file, mode: '600' });
    }
  });

  it('tightens a database file an older version created with a wider mode', async () => {
    const path = join(dir, 'read-models.db');
    writeFileSync(path, '');
    chmodSync(path, 0o644);
    store = openSqliteDocumentStore({ path });
    await store.write([{ collection: 'notes', op: 'upsert', doc: { id: 'n1', text: 'hello' } }]);
    expect(modeOf(path).toString(8)).toBe('600');
    expect(modeOf(`${path}-wal`).toString(8)).toBe('600');
  });
});
