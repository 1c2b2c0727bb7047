export { openSqliteVectorStore } from './sqlite-vector-store.adapter';
export type { SqliteVectorStoreOptions } from './sqlite-vector-store.adapter';
export type { IvfOptions } from './sqlite-ivf';
