export { openQdrantVectorStore } from './qdrant-vector-store.adapter';
export type { QdrantVectorStoreOptions } from './qdrant-vector-store.adapter';
export { DEFAULT_BM25 } from './sparse-bm25';
export type { Bm25Parameters } from './sparse-bm25';
