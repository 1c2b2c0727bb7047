import { send } from '@lore/platform/transport/port';
import { filesHolding, outcome, startContext, until, withContextDeps, type RunningContext } from '@lore/platform/testing';
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';
import { MEMORY_VERSIONS, type MemoryVersionDoc } from './memory.read-models';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const a = { workspaceId: 'ws_deleting', userId: 'alice', actor: 'user:alice' };
const b = { workspaceId: 'ws_writing', userId: 'bob', actor: 'user:bob' };

/** Deletions of these versions wait until `release`: the real store behind a gate. */
const gate = { ids: new Set<string>(), opened: Promise.resolve(), release: (): void => undefined };

/**
 * A deleted memory's versions go after the versions projection's batch that deleted the memory,
 * not inside it (a memory of 50,000 versions would hold every workspace's memory writes for
 * seconds); the memory's DELETE waits for them.
 */
describe("a deleted memory's versions", () => {
  let running: RunningContext;
  let documents: DocumentStore;
  beforeAll(async () => {
    const gated = withContextDeps(memoryContext, (deps) => {
      documents = deps.documents;
      const write = deps.documents.write.bind(deps.documents);
      const held = (w: DocumentWrite): boolean => w.collection === MEMORY_VERSIONS && w.op === 'delete' && gate.ids.has(w.id);
      deps.documents.write = async (writes, checkpoint) => {
        if (writes.some(held)) await gate.opened;
        return write(writes, checkpoint);
      };
      return deps;
    });
    running = await startContext(gated, { READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    gate.release();
    await running.stop();
  });

  it('leave with the memory, while another workspace keeps writing; the DELETE follows their removal', async () => {
    const memory = await send(running.transport, messages.create, { ...a, memory: 'Prefers the window seat', memoryType: 'user' });
    // A long history, as years of changes would leave it (the stored versions hold their text sealed).
    const [first] = (await documents.collection<MemoryVersionDoc>(MEMORY_VERSIONS).find({ filter: { memory_id: memory.memory_id } })).items;
    const older = Array.from({ length: 450 }, (_, i) => ({ ...first!, id: `${memory.memory_id}:${i + 2}`, version: i + 2, event: 'replaced' as const, recorded_at: `Quarnwick ${i}` }));
    await documents.write(older.map((doc) => ({ collection: MEMORY_VERSIONS, op: 'upsert' as const, doc })));
    expect((await send(running.transport, messages.history, { ...a, memoryId: memory.memory_id })).versions).toHaveLength(451);

    gate.ids = new Set([older.at(-1)!.id]);
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    expect(await send(running.transport, messages.delete, { ...a, memoryId: memory.memory_id })).toEqual({ memoryId: memory.memory_id, erasing: true });
    // Gone from every read, though the store still holds its versions.
    expect(await outcome(send(running.transport, messages.get, { ...a, memoryId: memory.memory_id }))).toBe('not_found');
    expect(await outcome(send(running.transport, messages.history, { ...a, memoryId: memory.memory_id }))).toBe('not_found');
    expect(filesHolding(running.dataDir, 'Quarnwick').length).toBeGreaterThan(0);
    // Another workspace's write is answered within the read-your-writes wait (1 s here), and its own deletion does not queue behind this purge.
    const others = await send(running.transport, messages.create, { ...b, memory: 'Takes tea without sugar', memoryType: 'user' });
    expect(await send(running.transport, messages.delete, { ...b, memoryId: others.memory_id })).toEqual({ memoryId: others.memory_id });

    // Repeated, it is still under way, for its owner only; so is a deletion of all of the owner's memories.
    expect(await send(running.transport, messages.delete, { ...a, memoryId: memory.memory_id })).toEqual({ memoryId: memory.memory_id, erasing: true });
    expect(await outcome(send(running.transport, messages.delete, { ...a, userId: 'mallory', actor: 'user:mallory', memoryId: memory.memory_id }))).toBe('not_found');
    expect(await send(running.transport, messages.deleteAllOfUser, a)).toEqual({ deletedCount: 0, erasing: true });

    gate.release();
    await until(() => outcome(send(running.transport, messages.delete, { ...a, memoryId: memory.memory_id })), (code) => code === 'not_found');
    expect(await documents.collection(MEMORY_VERSIONS).count({ memory_id: memory.memory_id })).toBe(0);
    expect(await send(running.transport, messages.deleteAllOfUser, a)).toEqual({ deletedCount: 0 });
    // The purge truncates the WAL after its last page.
    await until(async () => filesHolding(running.dataDir, 'Quarnwick'), (files) => files.length === 0, 10_000);
  });
});
