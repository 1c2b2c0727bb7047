import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeBlobStoreContract } from '@lore/platform/blobs/contract';
import { openFileBlobStore } from './file-blob-store.adapter';

describeBlobStoreContract('Files (embedded)', async () => {
  const dir = join(mkdtempSync(join(tmpdir(), 'lore-blobs-')), 'originals');
  const store = openFileBlobStore({ dir });
  return {
    store,
    reopen: async () => openFileBlobStore({ dir }),
    // Every file under the directory, temporary ones included, read whole.
    holdsBytes: async (marker) => readdirSync(dir).some((name) => readFileSync(join(dir, name)).includes(marker)),
    async cleanup() {
      await store.close();
      rmSync(join(dir, '..'), { recursive: true, force: true });
    },
  };
});
