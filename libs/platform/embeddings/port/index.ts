export * from './embeddings.port';
export * from './embedding-errors';
export * from './embedding-batcher';
export * from './query-cache';
export * from './vector-math';
export * from './embedding-models';
export * from './measured-embeddings';
export * from './model-resolution';
