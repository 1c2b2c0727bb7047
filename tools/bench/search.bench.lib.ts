// What tools/bench/search.bench.mjs needs from Lore, bundled by it with tools/bundle-options.json:
// the embedded vector store (through the port's VectorIndex API) and the local embedding model.
export { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
export { LocalEmbeddingProvider, DEFAULT_LOCAL_MODEL } from '@lore/platform/embeddings/local';
