export { openFileBlobStore, type FileBlobStoreOptions } from './file-blob-store.adapter';
