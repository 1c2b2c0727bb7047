import { randomBytes } from 'node:crypto';
import { QdrantClient } from '@qdrant/js-client-rest';
import { describeWithServer } from '@lore/platform/testing';
import { describeVectorIndexContract } from '@lore/platform/vectors/contract';
import { openQdrantVectorStore } from './qdrant-vector-store.adapter';

describeWithServer('QDRANT_URL', 'Qdrant vector store', (url) => {
  const apiKey = process.env['QDRANT_API_KEY'];
  const run = `lt${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
  let counter = 0;

  describeVectorIndexContract('Qdrant', async () => {
    // A collection prefix of our own per test: the server may be shared, and everything under it is dropped after.
    const prefix = `${run}_${++counter}`;
    const options = apiKey === undefined ? { url, prefix } : { url, prefix, apiKey };
    const store = await openQdrantVectorStore(options);
    return {
      store,
      cleanup: async () => {
        const client = new QdrantClient({ url, checkCompatibility: false, ...(apiKey === undefined ? {} : { apiKey }) });
        const { collections } = await client.getCollections();
        for (const { name } of collections) if (name.startsWith(`${prefix}_`)) await client.deleteCollection(name);
        await store.close();
      },
    };
  });
});
