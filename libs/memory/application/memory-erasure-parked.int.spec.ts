import { randomUUID } from 'node:crypto';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
import { Keyring, SealedFields } from '@lore/platform/crypto';
import { eventually } from '@lore/platform/event-store/contract';
import { EventProcessors, PARKED_COLLECTION, type Projection } from '@lore/platform/projections';
import { MEMORY_ERASURE, memoryErasureReactor } from './memory-erasure.reactor';
import { MemoryIndexWrites } from './memory-index-writes';

/**
 * Erasure with the real memory erasure reactor among running processors, one of which parked
 * the memory's events (its handler fails on them, as an over-long identifier made the search
 * index fail): the deletion is erased without waiting for anyone to retry, and neither the
 * stream, its key, the other processor's document nor a parked record is left.
 */
describe('memory erasure beside a processor that parked the memory', () => {
  it('is not blocked, and leaves nothing behind', async () => {
    const events = openSqliteEventStore({ path: ':memory:' });
    const documents = openSqliteDocumentStore({ path: ':memory:' });
    const keyring = await Keyring.open(documents, Buffer.alloc(32, 3));
    const vectors = openSqliteVectorStore({ path: ':memory:' });
    const failing: Projection = {
      name: 'test.memory-owners.v1',
      streamPrefixes: ['memory-'],
      collections: ['test_owners'],
      async handle(event, context) {
        if (event.type === 'memory.MemoryDeleted') return context.delete('test_owners', event.streamId);
        const data = event.data as { userId: string };
        if (data.userId.length > 200) throw new RangeError('identifier exceeds the index limit');
        context.upsert('test_owners', { id: event.streamId, user: data.userId });
      },
    };
    let processors: EventProcessors | null = null;
    const erasure = memoryErasureReactor({
      events, documents, keyring, vectors, indexWrites: new MemoryIndexWrites(),
      processedByOthers: async (position, erased) => processors?.waitForAllBut(MEMORY_ERASURE, position, 60_000, erased),
    });
    processors = new EventProcessors({ projections: [failing], reactors: [erasure] }, events, documents, () => undefined, vectors, { parking: { attempts: 2 } });
    try {
      await processors.start();
      const sealed = new SealedFields<{ memory: string }>(keyring, 'Memory');
      const key = await sealed.newKey();
      const stream = 'memory-mem_1';
      const owner = { memoryId: 'mem_1', workspaceId: 'ws', userId: 'u'.repeat(255) };
      const content = sealed.seal('mem_1', { memory: 'secret' }, key);
      await events.append(stream, [{ id: randomUUID(), type: 'memory.MemoryCreated', data: { ...owner, memoryType: 'user', content, createdAt: 't0' }, metadata: { workspaceId: 'ws' } }], 'no_stream');
      await eventually(() => processors?.parkedCounts()['test.memory-owners.v1'] === 1, 10_000);

      const started = Date.now();
      const deletion = await events.append(stream, [{ id: randomUUID(), type: 'memory.MemoryDeleted', data: { ...owner, deletedAt: 't1' }, metadata: { workspaceId: 'ws' } }], 0);
      await processors.waitForOne(MEMORY_ERASURE, deletion.position, 10_000);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await events.readStream(stream)).toEqual([]);
      expect(await keyring.get(key.keyId)).toBeNull();
      expect(processors.listParked()).toEqual([]);
      expect((await documents.collection(PARKED_COLLECTION).find()).items).toEqual([]);
      expect((await documents.collection('test_owners').find()).items).toEqual([]);
    } finally {
      await processors.stop();
      await events.close();
      await documents.close();
      await vectors.close();
    }
  });
});
