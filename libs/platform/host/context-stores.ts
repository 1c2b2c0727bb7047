import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { EsdbEventStore } from '@lore/platform/event-store/esdb';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openMongoDocumentStore } from '@lore/platform/documents/mongo';
import type { VectorStore } from '@lore/platform/vectors/port';
import { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
import { openQdrantVectorStore } from '@lore/platform/vectors/qdrant';
import { Keyring, loadMasterKey, masterKeyGeneratedMessage } from '@lore/platform/crypto';
import type { BlobStore } from '@lore/platform/blobs/port';
import { openFileBlobStore } from '@lore/platform/blobs/files';
import { openGridFsBlobStore } from '@lore/platform/blobs/mongo';
import { lazyBlobStore } from './lazy-blob-store';
import { lazyVectorStore } from './lazy-vector-store';
import type { Logger } from 'pino';
import type { LoreConfig } from '@lore/platform/runtime';

export interface ContextStores {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  /** Opened on first use: Qdrant when QDRANT_URL is set, else DATA_DIR/<context>/vectors.db. */
  readonly vectors: VectorStore;
  /** Opened on first use: GridFS bucket `originals` in <prefix>_<context>_blobs when MONGODB_URL is set, else DATA_DIR/<context>/originals/. */
  readonly blobs: BlobStore;
  close(): Promise<void>;
}

/**
 * Each context owns its stores. Production engines when their URL is set, otherwise
 * embedded SQLite files under DATA_DIR/<context>/ — chosen by configuration only.
 */
export async function openContextStores(config: LoreConfig, context: string, logger?: Logger, options: { readonly eventStoreWriterThread?: boolean } = {}): Promise<ContextStores> {
  const dir = join(config.dataDir, context);
  // Only the service's user may list or read what a context stores.
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const events = config.eventStoreUrl ? EsdbEventStore.connect(config.eventStoreUrl) : openSqliteEventStore({ path: join(dir, 'events.db'), writerThread: options.eventStoreWriterThread === true });
  const database = `${config.mongoDatabasePrefix}_${context}`;
  const documents = config.mongoUrl
    ? await openMongoDocumentStore({ url: config.mongoUrl, database })
    : openSqliteDocumentStore({ path: join(dir, 'read-models.db'), durability: 'normal' });
  // Data keys are not rebuildable from anything: their store is durable on every commit.
  const keyStore = config.mongoUrl
    ? await openMongoDocumentStore({ url: config.mongoUrl, database: `${database}_keys` })
    : openSqliteDocumentStore({ path: join(dir, 'keyring.db'), durability: 'full' });
  let keyring: Keyring;
  try {
    keyring = await Keyring.open(keyStore, loadMasterKey({
      value: config.masterKey,
      dataDir: config.dataDir,
      onGenerated: (file) => logger?.warn(masterKeyGeneratedMessage(file)),
    }));
  } catch (error) {
    // A refused key (wrong, or a rotation to finish) must not leave the stores open: an
    // in-process caller would keep keyring.db locked, which the rotation reads as "Lore running".
    await Promise.allSettled([events.close(), documents.close(), keyStore.close()]);
    throw error;
  }
  const vectors = lazyVectorStore(async () =>
    config.qdrantUrl
      ? openQdrantVectorStore({ url: config.qdrantUrl, prefix: `${config.qdrantCollectionPrefix}_${context}`, ...(config.qdrantApiKey === undefined ? {} : { apiKey: config.qdrantApiKey }) })
      : openSqliteVectorStore({ path: join(dir, 'vectors.db') }),
  );
  // Kept files are not rebuildable either: a database of their own, like the keys, never a read model's.
  const blobs = lazyBlobStore(async () =>
    config.mongoUrl ? openGridFsBlobStore({ url: config.mongoUrl, database: `${database}_blobs`, bucket: 'originals' }) : openFileBlobStore({ dir: join(dir, 'originals') }),
  );
  return {
    events,
    documents,
    keyring,
    vectors,
    blobs,
    async close() {
      await blobs.close();
      await vectors.close();
      await events.close();
      await documents.close();
      await keyStore.close();
    },
  };
}
