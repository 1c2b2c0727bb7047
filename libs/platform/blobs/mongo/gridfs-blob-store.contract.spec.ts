import { randomBytes } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describeBlobStoreContract } from '@lore/platform/blobs/contract';
import { describeWithServer } from '@lore/platform/testing';
import { openGridFsBlobStore } from './gridfs-blob-store.adapter';

describeWithServer('MONGODB_URL', 'MongoDB GridFS blob store', (url) => {
  // A database of our own per run (the server may be shared), dropped at the end; a bucket per test.
  const database = `lore_blobs_contract_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const client = new MongoClient(url);

  afterAll(async () => {
    try {
      await client.db(database).dropDatabase();
    } finally {
      await client.close();
    }
  });

  describeBlobStoreContract('MongoDB GridFS', async () => {
    const bucket = `blobs_${randomBytes(4).toString('hex')}`;
    const store = await openGridFsBlobStore({ url, database, bucket });
    return {
      store,
      reopen: () => openGridFsBlobStore({ url, database, bucket }),
      // Every chunk and file document of the bucket, read whole (a marker may straddle two chunks).
      async holdsBytes(marker) {
        const db = client.db(database);
        const chunks = await db.collection<{ files_id: unknown; n: number; data: { buffer: Uint8Array } }>(`${bucket}.chunks`).find().sort({ files_id: 1, n: 1 }).toArray();
        const files = await db.collection(`${bucket}.files`).find().toArray();
        const stored = Buffer.concat([...chunks.map((chunk) => Buffer.from(chunk.data.buffer)), Buffer.from(JSON.stringify(files))]);
        return stored.includes(marker);
      },
      async cleanup() {
        await store.close();
      },
    };
  });
});
