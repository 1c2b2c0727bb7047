import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeVectorIndexContract } from '@lore/platform/vectors/contract';
import type { VectorStore } from '@lore/platform/vectors/port';
import { openSqliteVectorStore, SqliteVectorStore } from './sqlite-vector-store.adapter';

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

/**
 * The same contract with every collection on an HNSW graph from its first point (`minPoints: 1`),
 * each write followed by the graphs catching up, so that searches take the graph path; the
 * graph files are among the files the deletion tests read.
 */
describeVectorIndexContract('SQLite + sqlite-vec + FTS5 (file-backed, HNSW graphs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-vectors-graphs-'));
  const path = join(dir, 'vectors.db');
  const graphs = `${path}-graphs`;
  const inner = new SqliteVectorStore({ path, graphs: { minPoints: 1, saveDelayMs: 0 } });
  const store: VectorStore = {
    ensureIndex: (definition) => inner.ensureIndex(definition),
    listIndexes: () => inner.listIndexes(),
    dropIndex: (name) => inner.dropIndex(name),
    index: (name) => inner.index(name),
    write: async (writes, checkpoint) => {
      await inner.write(writes, checkpoint);
      await inner.settled();
    },
    getCheckpoint: (name) => inner.getCheckpoint(name),
    reset: (indexes, checkpointName) => inner.reset(indexes, checkpointName),
    purgeDeleted: async () => {
      await inner.flushGraphs();
      await inner.purgeDeleted();
    },
    close: () => inner.close(),
  };
  const graphFiles = (): string[] => (existsSync(graphs) ? readdirSync(graphs).map((file) => join(graphs, file)) : []);
  return Promise.resolve({
    store,
    atomicWrites: true,
    files: () => Buffer.concat([path, `${path}-wal`, `${path}-shm`, ...graphFiles()].filter((file) => existsSync(file)).map((file) => readFileSync(file))),
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  });
});
