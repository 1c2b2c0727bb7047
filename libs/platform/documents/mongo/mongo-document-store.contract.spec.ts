import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describeDocumentStoreContract } from '@lore/platform/documents/contract';
import { openMongoDocumentStore } from './mongo-document-store.adapter';
import { describeWithServer } from '@lore/platform/testing';

describeWithServer('MONGODB_URL', 'MongoDB document store', (url) => {
  // A database of our own per run: the server may be shared, and this one is dropped at the end.
  const database = `lore_contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;

  afterAll(async () => {
    const client = new MongoClient(url);
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  });

  describeDocumentStoreContract('MongoDB', async () => {
    const store = await openMongoDocumentStore({ url, database });
    return { store, cleanup: () => store.close() };
  });
});
