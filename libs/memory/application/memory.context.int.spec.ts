import { AppError } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';

/** The memory service enforces its rules for any caller on the transport, not only behind the gateway. */
describe('memory context, called directly on the transport', () => {
  let running: RunningContext;
  const messages = memoryMessages({ maxMemoryChars: 20, maxTopics: 2, maxTopicChars: 5, maxMetadataBytes: 64 });
  const scope = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };

  beforeAll(async () => {
    running = await startContext(memoryContext, { MEMORY_MAX_CHARS: '20', MEMORY_MAX_TOPICS: '2', MEMORY_TOPIC_MAX_CHARS: '5', MEMORY_METADATA_MAX_BYTES: '64' });
  });
  afterAll(async () => {
    await running.stop();
  });

  const rejected = async (payload: unknown): Promise<AppError> => {
    const error = await running.transport.request(messages.create.subject, payload).then(() => null, (e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  };

  it('creates and reads back through typed messages', async () => {
    const created = await send(running.transport, messages.create, { ...scope, memory: 'green tea', memoryType: 'user', topics: ['tea'] });
    expect(created).toMatchObject({ memory: 'green tea', topics: ['tea'], user_id: 'alice' });
    expect(await send(running.transport, messages.get, { ...scope, memoryId: created.memory_id })).toEqual(created);
  });

  it.each([
    ['text over the configured limit', { memory: 'x'.repeat(21) }, ['message', 'memory']],
    ['too many topics', { memory: 'ok', topics: ['a', 'b', 'c'] }, ['message', 'topics']],
    ['a topic over its limit', { memory: 'ok', topics: ['toolong'] }, ['message', 'topics', 0]],
    ['metadata over its size', { memory: 'ok', metadata: { note: 'y'.repeat(100) } }, ['message', 'metadata']],
    ['metadata nested too deep', { memory: 'ok', metadata: deep(200) }, ['message', 'metadata']],
    ['an unknown memory type', { memory: 'ok', memoryType: 'robot' }, ['message', 'memoryType']],
    ['no owner', { memory: 'ok', userId: undefined }, ['message', 'userId']],
  ])('refuses %s with a validation error naming the field', async (_what, over, loc) => {
    const error = await rejected({ ...scope, memoryType: 'user', ...over });
    expect(error.code).toBe('validation');
    expect(error.issues.map((i) => i.loc)).toContainEqual(loc);
  });

  it('records who and why with every event: actor, workspace, and the request it came from as request and correlation id', async () => {
    const created = await send(running.transport, messages.create, { ...scope, memory: 'audited', memoryType: 'user' }, { requestId: 'req-audit-1' });
    const stores = await running.openStores();
    try {
      const [event] = await stores.events.readStream(`memory-${created.memory_id}`);
      expect(event?.metadata).toMatchObject({ actor: 'user:alice', workspaceId: 'ws', requestId: 'req-audit-1', correlationId: 'req-audit-1' });
      expect(JSON.stringify(event?.metadata)).not.toContain('audited');
    } finally {
      await stores.close();
    }
  });

  it('keeps one user\'s workspaces apart: list (plain, by topic, by text), get, history and export see only the asked one', async () => {
    const inA = { workspaceId: 'ws-a', userId: 'carol', actor: 'user:carol' };
    const inB = { ...inA, workspaceId: 'ws-b' };
    const a = await send(running.transport, messages.create, { ...inA, memory: 'tea in A', memoryType: 'user', topics: ['tea'] });
    const b = await send(running.transport, messages.create, { ...inB, memory: 'tea in B', memoryType: 'user', topics: ['tea'] });
    for (const filter of [{}, { topics: ['tea'] }, { search: 'tea' }]) {
      const listed = await send(running.transport, messages.list, { ...inB, ...filter });
      expect({ filter, ids: listed.items.map((m) => m.memory_id), total: listed.total }).toEqual({ filter, ids: [b.memory_id], total: 1 });
    }
    for (const query of [messages.get, messages.history]) {
      await expect(send(running.transport, query, { ...inB, memoryId: a.memory_id })).rejects.toMatchObject({ code: 'not_found' });
    }
    const exported = await send(running.transport, messages.export, inB);
    expect(exported.memories.map((m) => m.memory_id)).toEqual([b.memory_id]);
  });

  it("answers another user's memory as not found", async () => {
    const created = await send(running.transport, messages.create, { ...scope, memory: 'mine', memoryType: 'user' });
    const error = await running.transport.request(messages.get.subject, { ...scope, userId: 'mallory', memoryId: created.memory_id }).then(() => null, (e: unknown) => e);
    expect(error).toMatchObject({ code: 'not_found' });
  });
});

function deep(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
}
