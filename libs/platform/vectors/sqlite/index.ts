export { openSqliteVectorStore } from './sqlite-vector-store.adapter';
export type { SqliteVectorStoreOptions } from './sqlite-vector-store.adapter';
export type { GraphOptions } from './sqlite-graphs';
export { GRAPH_DEFAULTS } from './sqlite-graphs';
