export { openSqliteDocumentStore } from './sqlite-document-store.adapter';
export type { SqliteDocumentStoreOptions } from './sqlite-document-store.adapter';
