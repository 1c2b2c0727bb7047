export { SqliteEventStore, openSqliteEventStore } from './sqlite-event-store.adapter';
export type { SqliteEventStoreOptions } from './sqlite-event-store.adapter';
