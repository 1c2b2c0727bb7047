import type { BlobStore } from '@lore/platform/blobs/port';

/**
 * A blob store opened on first use, like the vector store: every context's deps carry one, and
 * only a context that keeps files creates its directory or connects to GridFS.
 */
export function lazyBlobStore(open: () => Promise<BlobStore>): BlobStore {
  let opened: Promise<BlobStore> | null = null;
  const store = (): Promise<BlobStore> => {
    opened ??= open().catch((error: unknown) => {
      opened = null; // a store that could not be reached is tried again on the next call
      throw error;
    });
    return opened;
  };
  return {
    put: async (id, bytes, meta) => (await store()).put(id, bytes, meta),
    get: async (id) => (await store()).get(id),
    has: async (id) => (await store()).has(id),
    delete: async (id) => (await store()).delete(id),
    idsCreatedBefore: async (before, limit) => (await store()).idsCreatedBefore(before, limit),
    async close() {
      if (opened === null) return;
      const current = opened;
      opened = null;
      await (await current).close();
    },
  };
}
