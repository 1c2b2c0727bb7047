import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEmbeddingModels } from './embedding-models';

describe('embedding models from the environment', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'lore-embedding-env-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('EMBEDDING_LOCAL_DOWNLOAD=false: a missing local model fails at once, naming why, with no request to the hub', async () => {
    let requests = 0;
    const realFetch = globalThis.fetch;
    globalThis.fetch = (...args) => {
      requests++;
      return realFetch(...args);
    };
    try {
      const env = { DATA_DIR: dataDir, MODELS_DIR: join(dataDir, 'none'), HF_ENDPOINT: 'http://127.0.0.1:1/', EMBEDDING_LOCAL_DOWNLOAD: 'false' };
      const off = openEmbeddingModels(env);
      await expect(off.get(off.defaultModel)!.embedQuery('x')).rejects.toThrow('downloading is turned off');
      await off.close();
      expect(requests).toBe(0);
      // Unset, the hub is asked (here a closed port), as it is by default.
      const { EMBEDDING_LOCAL_DOWNLOAD: _, ...byDefault } = env;
      const on = openEmbeddingModels(byDefault);
      await expect(on.get(on.defaultModel)!.embedQuery('x')).rejects.toThrow('cannot be reached');
      await on.close();
      expect(requests).toBe(1);
    } finally {
      globalThis.fetch = realFetch;
    }
  });

  it('refuses a value that is not yes or no', () => {
    expect(() => openEmbeddingModels({ DATA_DIR: dataDir, EMBEDDING_LOCAL_DOWNLOAD: 'sometimes' })).toThrow('EMBEDDING_LOCAL_DOWNLOAD');
  });
});
