import type { AppError } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { startContext, until, type RunningContext } from '@lore/platform/testing';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const bob = { workspaceId: 'ws', userId: 'bob', actor: 'user:bob' };

describe('memory expiry', () => {
  let running: RunningContext;
  const list = async () => (await send(running.transport, messages.list, { ...bob, sortBy: 'created_at', sortOrder: 'asc', skip: 0, limit: 100 })).items.map((m) => m.memory);

  beforeAll(async () => {
    running = await startContext(memoryContext, { MEMORY_EXPIRY_SWEEP_SECONDS: '1', MEMORY_TTL_BY_TYPE: 'workflow=3600' });
  });
  afterAll(() => running.stop());

  it('refuses an expires_at in the past', async () => {
    const error = await send(running.transport, messages.create, { ...bob, memory: 'late', memoryType: 'user', expiresAt: '2000-01-01T00:00:00Z' }).catch((e: unknown) => e);
    expect((error as AppError).code).toBe('validation');
  });

  it('gives a type its configured TTL, and never expires a memory created with expires_at null', async () => {
    const started = Date.now();
    const step = await send(running.transport, messages.create, { ...bob, memory: 'step 3 is next', memoryType: 'workflow' });
    const ttl = Date.parse(step.expires_at ?? '') - started;
    expect(ttl).toBeGreaterThan(3590_000);
    expect(ttl).toBeLessThan(3610_000);
    const kept = await send(running.transport, messages.create, { ...bob, memory: 'kept workflow', memoryType: 'workflow', expiresAt: null });
    expect(kept.expires_at).toBeNull();
  });

  it('takes an expired memory out of reads, then the sweep erases it like a deletion', async () => {
    const soon = new Date(Date.now() + 1_000).toISOString();
    const brief = await send(running.transport, messages.create, { ...bob, memory: 'parked on level 2', memoryType: 'user', expiresAt: soon });
    expect(brief.expires_at).toBe(soon);
    expect(await list()).toContain('parked on level 2');
    await until(list, (items) => !items.includes('parked on level 2'), 10_000);
    const gone = await send(running.transport, messages.get, { ...bob, memoryId: brief.memory_id }).catch((e: unknown) => e);
    expect((gone as AppError).code).toBe('not_found');
    // Erased by the erasure reactor: the stream is gone with its key.
    const stores = await running.openStores();
    try {
      await until(() => stores.events.readStream(`memory-${brief.memory_id}`), (events) => events.length === 0, 10_000);
    } finally {
      await stores.close();
    }
    expect(await list()).toEqual(['step 3 is next', 'kept workflow']);
  });
});
