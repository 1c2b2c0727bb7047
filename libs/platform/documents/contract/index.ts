export { describeDocumentStoreContract } from './document-store.contract';
export type { DocumentStoreFactory, DocumentStoreFixture } from './contract-context';
