import { send } from '@lore/platform/transport/port';
import { DeletionGate, filesHolding, outcome, startContext, until, type RunningContext } from '@lore/platform/testing';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';
import { MEMORY_VERSIONS, type MemoryVersionDoc } from './memory.read-models';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const a = { workspaceId: 'ws_deleting', userId: 'alice', actor: 'user:alice' };
const b = { workspaceId: 'ws_writing', userId: 'bob', actor: 'user:bob' };

/** Deletions of versions wait here when held. */
const gate = new DeletionGate(MEMORY_VERSIONS);

/**
 * A deleted memory's versions go after the versions projection's batch that deleted the memory,
 * not inside it (a memory of 50,000 versions would hold every workspace's memory writes for
 * seconds); the memory's DELETE waits for them.
 */
describe("a deleted memory's versions", () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(gate.around(memoryContext), { READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    gate.release();
    await running.stop();
  });

  it('leave with the memory, while another workspace keeps writing; the DELETE follows their removal', async () => {
    const memory = await send(running.transport, messages.create, { ...a, memory: 'Prefers the window seat', memoryType: 'user' });
    // A long history, as years of changes would leave it (the stored versions hold their text sealed).
    const [first] = (await gate.documents.collection<MemoryVersionDoc>(MEMORY_VERSIONS).find({ filter: { memory_id: memory.memory_id } })).items;
    const older = Array.from({ length: 450 }, (_, i) => ({ ...first!, id: `${memory.memory_id}:${i + 2}`, version: i + 2, event: 'replaced' as const, recorded_at: `Quarnwick ${i}` }));
    await gate.documents.write(older.map((doc) => ({ collection: MEMORY_VERSIONS, op: 'upsert' as const, doc })));
    expect((await send(running.transport, messages.history, { ...a, memoryId: memory.memory_id })).versions).toHaveLength(451);

    gate.hold([older.at(-1)!.id]);
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
    expect(await gate.documents.collection(MEMORY_VERSIONS).count({ memory_id: memory.memory_id })).toBe(0);
    expect(await send(running.transport, messages.deleteAllOfUser, a)).toEqual({ deletedCount: 0 });
    // The purge truncates the WAL after its last page.
    await until(async () => filesHolding(running.dataDir, 'Quarnwick'), (files) => files.length === 0, 10_000);
  });
});
