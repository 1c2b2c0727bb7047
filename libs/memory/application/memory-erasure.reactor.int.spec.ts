import { randomUUID } from 'node:crypto';
import type { Position } from '@lore/platform/kernel';
import { openSqliteEventStore } from '@lore/platform/event-store/sqlite';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { openSqliteVectorStore } from '@lore/platform/vectors/sqlite';
import { Keyring, SealedFields } from '@lore/platform/crypto';
import { memoryErasureReactor } from './memory-erasure.reactor';
import { MemoryIndexWrites } from './memory-index-writes';

/** Erasure destroys what the other processors read: it must never run ahead of them. */
describe('memory erasure reactor', () => {
  it('deletes nothing until every other processor has passed the deletion, then erases key and stream', async () => {
    const events = openSqliteEventStore({ path: ':memory:' });
    const documents = openSqliteDocumentStore({ path: ':memory:' });
    const keyring = await Keyring.open(documents, Buffer.alloc(32, 3));
    const vectors = openSqliteVectorStore({ path: ':memory:' });
    try {
      const sealed = new SealedFields<{ memory: string }>(keyring, 'Memory');
      const key = await sealed.newKey();
      const stream = 'memory-mem_1';
      const owner = { memoryId: 'mem_1', workspaceId: 'ws', userId: 'u' };
      const content = sealed.seal('mem_1', { memory: 'secret' }, key);
      await events.append(stream, [{ id: randomUUID(), type: 'memory.MemoryCreated', data: { ...owner, memoryType: 'user', content, createdAt: 't0' } }], 'no_stream');
      await events.append(stream, [{ id: randomUUID(), type: 'memory.MemoryDeleted', data: { ...owner, deletedAt: 't1' } }], 0);
      const recorded = await events.readStream(stream);

      let release: () => void = () => undefined;
      const waitedFor: Position[] = [];
      const others = new Promise<void>((resolve) => {
        release = resolve;
      });
      const reactor = memoryErasureReactor({ events, documents, keyring, vectors, indexWrites: new MemoryIndexWrites(), processedByOthers: async (position) => {
        waitedFor.push(position);
        await others;
      } });
      const reacting = reactor.react(recorded);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(waitedFor).toEqual([recorded[1]?.position]);
      expect(await events.readStream(stream)).toHaveLength(2);
      expect(await keyring.get(key.keyId)).not.toBeNull();

      release();
      await reacting;
      expect(await events.readStream(stream)).toEqual([]);
      expect(await keyring.get(key.keyId)).toBeNull();
      // Run again (a crash before the checkpoint): nothing left to do, nothing fails.
      await expect(reactor.react(recorded)).resolves.toBeUndefined();
    } finally {
      await events.close();
      await documents.close();
      await vectors.close();
    }
  });
});
