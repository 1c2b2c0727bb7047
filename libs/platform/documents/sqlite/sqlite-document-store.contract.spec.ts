import { describeDocumentStoreContract } from '@lore/platform/documents/contract';
import { openSqliteDocumentStore } from './sqlite-document-store.adapter';

describeDocumentStoreContract('SQLite (in memory)', () => {
  const store = openSqliteDocumentStore({ path: ':memory:' });
  return Promise.resolve({ store, cleanup: () => store.close() });
});
