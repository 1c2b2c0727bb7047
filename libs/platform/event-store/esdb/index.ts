export { EsdbEventStore, openEsdbEventStore } from './esdb-event-store.adapter';
export type { EsdbEventStoreOptions } from './esdb-event-store.adapter';
