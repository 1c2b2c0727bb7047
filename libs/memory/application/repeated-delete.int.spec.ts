import { send } from '@lore/platform/transport/port';
import { holdingReactor, recordingEventStore, startContext, until, withContextDeps, type RecordedStoreCall, type RunningContext } from '@lore/platform/testing';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryStreamId } from '@lore/memory/domain';
import { memoryContext } from './memory.context';
import { MEMORY_ERASURE } from './memory-erasure.reactor';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const bob = { workspaceId: 'ws', userId: 'bob', actor: 'user:bob' };

/** A DELETE repeated while the first one's erasure is still pending waits for that erasure, reading the memory's stream once (to decide), not twice. */
describe('a repeated memory delete', () => {
  let running: RunningContext;
  let calls: RecordedStoreCall[] = [];
  const held = holdingReactor(
    withContextDeps(memoryContext, (deps) => {
      const recording = recordingEventStore(deps.events);
      calls = recording.calls;
      return { ...deps, events: recording.store };
    }),
    MEMORY_ERASURE,
  );
  beforeAll(async () => {
    running = await startContext(held.definition);
  });
  afterAll(() => running.stop());

  it('reads the stream whole once, and answers as before once the erasure is done', async () => {
    const memory = await send(running.transport, messages.create, { ...bob, memory: 'first version', memoryType: 'user' });
    for (let i = 2; i <= 4; i++) await send(running.transport, messages.replace, { ...bob, memoryId: memory.memory_id, memory: `version ${i}` });
    const streamId = memoryStreamId(memory.memory_id);
    const first = send(running.transport, messages.delete, { ...bob, memoryId: memory.memory_id });
    let answered = false;
    void first.then(() => (answered = true));
    const stores = await running.openStores();
    try {
      await until(() => stores.events.readStream(streamId), (events) => events.at(-1)?.type === 'memory.MemoryDeleted', 5_000);
    } finally {
      await stores.close();
    }
    const repeat = send(running.transport, messages.delete, { ...bob, memoryId: memory.memory_id }, { requestId: 'repeated-delete' });
    // The first waits for the erasure held back, as the repeat does.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);
    held.release();
    expect(await first).toEqual({ memoryId: memory.memory_id });
    expect(await repeat).toEqual({ memoryId: memory.memory_id });
    // The memory has no state cache: deciding reads it whole once; where the erasure stands needs no second read.
    const wholeReads = calls.filter((c) => c.requestId === 'repeated-delete' && c.op === 'readStream' && c.whole);
    expect(wholeReads.map((c) => c.streamId)).toEqual([streamId]);
  });
});
