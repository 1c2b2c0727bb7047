export { describeBlobStoreContract, type BlobStoreFactory, type BlobStoreFixture } from './blob-store.contract';
