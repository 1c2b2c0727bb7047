import { describeEmbeddingProviderContract, describeWithModels } from '@lore/platform/embeddings/contract';
import { LocalEmbeddingProvider } from './local-embeddings.adapter';

describeWithModels('local embeddings (all-MiniLM-L6-v2, q8)', (modelsDir) => {
  describeEmbeddingProviderContract('local', async () => {
    // No DATA_DIR: the model comes from MODELS_DIR or nowhere, never from the network.
    const provider = new LocalEmbeddingProvider({ modelsDir });
    return { provider, cleanup: () => provider.close() };
  });
});
