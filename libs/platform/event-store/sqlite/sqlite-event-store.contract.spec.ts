import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeEventStoreContract } from '@lore/platform/event-store/contract';
import { openSqliteEventStore } from './sqlite-event-store.adapter';

describeEventStoreContract('SQLite (file)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-event-store-'));
  const store = openSqliteEventStore({ path: join(dir, 'events.db') });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

describeEventStoreContract('SQLite (:memory:)', async () => {
  const store = openSqliteEventStore({ path: ':memory:' });
  return { store, cleanup: () => store.close() };
});

describeEventStoreContract('SQLite (file, writer thread)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'lore-event-store-'));
  const store = openSqliteEventStore({ path: join(dir, 'events.db'), writerThread: true });
  return {
    store,
    cleanup: async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});
