export { SqliteEventStore, openSqliteEventStore } from './sqlite-event-store.adapter';
export type { SqliteEventStoreOptions } from './sqlite-event-store.adapter';
/** The stored row shape, for tools that read the files directly (read-only audit). */
export { EVENT_COLUMNS, toRecordedEvent, type EventRow } from './sqlite-schema';
/** The `streams.deleted` value of a deletion under way, for the audit. */
export { STREAM_BEING_DELETED } from './sqlite-stream-deletion';
