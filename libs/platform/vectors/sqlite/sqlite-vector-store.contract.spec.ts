import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeVectorIndexContract } from '@lore/platform/vectors/contract';
import { openSqliteVectorStore } from './sqlite-vector-store.adapter';

describeVectorIndexContract('SQLite + sqlite-vec + FTS5 (file-backed)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-vectors-'));
  const path = join(dir, 'vectors.db');
  const store = openSqliteVectorStore({ path });
  return Promise.resolve({
    store,
    atomicWrites: true,
    files: () => Buffer.concat([path, `${path}-wal`, `${path}-shm`].filter((file) => existsSync(file)).map((file) => readFileSync(file))),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});
