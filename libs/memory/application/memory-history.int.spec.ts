import { send } from '@lore/platform/transport/port';
import { countTurns, startContext, withContextDeps, type RunningContext } from '@lore/platform/testing';
import type { DocumentStore } from '@lore/platform/documents/port';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';
import { MEMORY_VERSIONS, type MemoryVersionDoc } from './memory.read-models';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const owner = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };
const VERSIONS = Number(process.env.HISTORY_VERSIONS ?? 2_000);

/**
 * A memory has as many versions as it had changes. Its history and the user's export read and
 * open them a page at a time with a turn of the event loop between, so that a long history
 * never holds every other request of the process (50,000 read and opened at once: about a second).
 */
describe('a long history', () => {
  let running: RunningContext;
  let documents: DocumentStore;
  beforeAll(async () => {
    running = await startContext(
      withContextDeps(memoryContext, (deps) => {
        documents = deps.documents;
        return deps;
      }),
    );
  });
  afterAll(() => running.stop());

  it('comes whole and in order, read in pages that let other work in between', async () => {
    const memory = await send(running.transport, messages.create, { ...owner, memory: 'Walks the dog at seven', memoryType: 'user' });
    const [first] = (await documents.collection<MemoryVersionDoc>(MEMORY_VERSIONS).find({ filter: { memory_id: memory.memory_id } })).items;
    const later = Array.from({ length: VERSIONS }, (_, i) => ({ ...first!, id: `${memory.memory_id}:${i + 2}`, version: i + 2, event: 'replaced' as const }));
    for (let i = 0; i < later.length; i += 1_000) await documents.write(later.slice(i, i + 1_000).map((doc) => ({ collection: MEMORY_VERSIONS, op: 'upsert' as const, doc })));

    const turns = countTurns();
    const started = performance.now();
    const { versions } = await send(running.transport, messages.history, { ...owner, memoryId: memory.memory_id });
    const taken = performance.now() - started;
    const turned = turns();
    expect(versions.map((v) => v.version)).toEqual(Array.from({ length: VERSIONS + 1 }, (_, i) => i + 1));
    // One turn a page of 500 at least.
    expect(turned).toBeGreaterThanOrEqual(Math.floor(VERSIONS / 500));
    if (process.env.HISTORY_VERSIONS !== undefined) process.stdout.write(`${VERSIONS + 1} versions: history in ${taken.toFixed(0)} ms, ${turned} turns\n`);

    const exported = await send(running.transport, messages.export, owner);
    expect(exported.memories.find((m) => m.memory_id === memory.memory_id)?.history).toHaveLength(VERSIONS + 1);
  });
});

/**
 * A user may hold up to a workspace's QUOTA_MEMORIES memories. A list filtered by topics or text
 * (both sealed, so filtered after opening) and the export read and open them a page at a time
 * with a turn between, not all in one query and one burst of openings.
 */
describe('many memories of one user', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(memoryContext);
  });
  afterAll(() => running.stop());

  it('are searched and exported whole, in pages that let other work in between', async () => {
    const many = { ...owner, userId: 'bob', actor: 'user:bob' };
    const count = 1_200;
    for (let i = 0; i < count; i += 100) {
      await Promise.all(Array.from({ length: 100 }, (_, j) => send(running.transport, messages.create, { ...many, memory: `Note ${i + j} about gardening`, memoryType: 'user', topics: ['garden'] })));
    }

    let turns = countTurns();
    const listed = await send(running.transport, messages.list, { ...many, search: 'gardening', topics: ['garden'], limit: 10, skip: 0, sortBy: 'created_at', sortOrder: 'asc' });
    expect({ total: listed.total, shown: listed.items.length }).toEqual({ total: count, shown: 10 });
    expect(turns()).toBeGreaterThanOrEqual(Math.floor(count / 500));

    turns = countTurns();
    const exported = await send(running.transport, messages.export, many);
    expect(exported.memories).toHaveLength(count);
    expect(turns()).toBeGreaterThanOrEqual(Math.floor(count / 500));

    // Read by creation, ordered by the asked key: a few replaced (the oldest, across the read's
    // pages) come first by updated_at, and cursor pages meet every memory once.
    // The export is in creation order.
    const byCreation = exported.memories.map((m) => m.memory_id);
    const replaced = [byCreation[0], byCreation[600], byCreation[1100]].filter((id): id is string => id !== undefined);
    for (const memoryId of replaced) await send(running.transport, messages.replace, { ...many, memoryId, memory: 'Replaced: still about gardening' });
    const seen: string[] = [];
    // At most as many pages as there are: a cursor out of step with the order would page on for ever.
    for (let cursor: string | undefined, pages = 0; pages < count / 250 + 1; pages++) {
      const page = await send(running.transport, messages.list, { ...many, search: 'gardening', limit: 250, skip: 0, sortBy: 'updated_at', sortOrder: 'desc', ...(cursor === undefined ? {} : { cursor }) });
      seen.push(...page.items.map((m) => m.memory_id));
      if (page.nextCursor === null) break;
      cursor = page.nextCursor;
    }
    expect(new Set(seen).size).toBe(count);
    expect(seen).toHaveLength(count);
    expect(new Set(seen.slice(0, replaced.length))).toEqual(new Set(replaced));
  });
});
