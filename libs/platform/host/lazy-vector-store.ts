import type { VectorIndex, VectorStore } from '@lore/platform/vectors/port';

/**
 * A vector store opened on first use: every context's deps carry one, and only the contexts
 * that search (knowledge, memory) ever create its file or connect to Qdrant.
 */
export function lazyVectorStore(open: () => Promise<VectorStore>): VectorStore {
  let opened: Promise<VectorStore> | null = null;
  const store = (): Promise<VectorStore> => {
    opened ??= open().catch((error: unknown) => {
      opened = null; // a store that could not be reached is tried again on the next call
      throw error;
    });
    return opened;
  };
  return {
    ensureIndex: async (definition) => (await store()).ensureIndex(definition),
    listIndexes: async () => (await store()).listIndexes(),
    dropIndex: async (name) => (await store()).dropIndex(name),
    index(name): VectorIndex {
      const index = async (): Promise<VectorIndex> => (await store()).index(name);
      return {
        name,
        get: async (ids, options) => (await index()).get(ids, options),
        count: async (scope) => (await index()).count(scope),
        searchVector: async (query) => (await index()).searchVector(query),
        searchKeyword: async (query) => (await index()).searchKeyword(query),
        searchHybrid: async (query) => (await index()).searchHybrid(query),
      };
    },
    write: async (writes, checkpoint) => (await store()).write(writes, checkpoint),
    getCheckpoint: async (name) => (await store()).getCheckpoint(name),
    reset: async (indexes, checkpointName) => (await store()).reset(indexes, checkpointName),
    purgeDeleted: async () => (await store()).purgeDeleted(),
    async close() {
      if (opened === null) return;
      const current = opened;
      opened = null;
      await (await current).close();
    },
  };
}
