export { describeEventStoreContract } from './event-store.contract';
export type { EventStoreFactory, EventStoreUnderTest } from './event-store.contract';
export { eventsOf, eventually, uniqueName } from './contract-helpers';
