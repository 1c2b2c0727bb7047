import { describeWithServer } from '@lore/platform/testing';
import { describeEventStoreContract } from '@lore/platform/event-store/contract';
import { openEsdbEventStore } from './esdb-event-store.adapter';

// Streams carry random suffixes, so the suite can run against a shared server with other data.
describeWithServer('EVENTSTORE_URL', 'EventStoreDB event store', (url) =>
  describeEventStoreContract('EventStoreDB', async () => {
    const store = openEsdbEventStore({ connectionString: url });
    return { store, cleanup: () => store.close() };
  }),
);
