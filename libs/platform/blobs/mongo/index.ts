export { openGridFsBlobStore, type GridFsBlobStoreOptions } from './gridfs-blob-store.adapter';
