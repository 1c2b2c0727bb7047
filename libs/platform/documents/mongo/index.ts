export { openMongoDocumentStore } from './mongo-document-store.adapter';
export type { MongoDocumentStoreOptions } from './mongo-document-store.adapter';
