import type { VectorWrite } from '@lore/platform/vectors/port';
import { send } from '@lore/platform/transport/port';
import { filesHolding, outcome, startContext, until, withVectorWriteGate, type RunningContext } from '@lore/platform/testing';
import { describeWithModels } from '@lore/platform/embeddings/contract';
import { knowledgeConfig, knowledgeMessages } from '@lore/knowledge/contracts';
import { knowledgeContext } from './knowledge.context';

/** Vector deletions of these chunks (by id, or by their content) wait until `release` is called: the real store behind a gate. */
const gate = { chunkIds: new Set<string>(), contentId: '', opened: Promise.resolve(), release: (): void => undefined };
const held = (w: VectorWrite): boolean => (w.op === 'delete' && w.ids.some((id) => gate.chunkIds.has(id))) || (w.op === 'deleteWhere' && w.filter?.['content_id'] === gate.contentId && gate.contentId !== '');
const gated = withVectorWriteGate(knowledgeContext, async (writes) => {
  if (writes.some(held)) await gate.opened;
});

const messages = knowledgeMessages(knowledgeConfig.parse({}));
const a = { workspaceId: 'ws_deleting', actor: 'user:alice', collections: null };
const b = { workspaceId: 'ws_writing', actor: 'user:bob', collections: null };


/**
 * A deleted content's chunks leave every read with the deletion, and are removed from the chunk
 * records and the vector index afterwards by the purge worker: another workspace's writes
 * never wait for that removal (they used to wait for the projections' batch that removed them,
 * seconds for a large content), nor does another workspace's erasure; the content's DELETE does.
 */
describeWithModels('the chunks of a deleted content', (modelsDir) => {
  let running: RunningContext;

  beforeAll(async () => {
    running = await startContext(gated, { MODELS_DIR: modelsDir, READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    gate.release();
    await running.stop();
  });

  it('leave every read at once, while another workspace keeps writing; their removal and the erasure follow', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...a, name: 'deleting' });
    const content = await send(running.transport, messages.createContent, { ...a, collectionId: collection.id, name: 'big.txt', text: 'Vrendolith lanterns glow over the Quallmire docks at dusk.', mimeType: 'text/plain' });
    await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
    const chunks = (await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items;
    expect(chunks.length).toBeGreaterThan(0);
    const search = () => send(running.transport, messages.search, { ...a, collectionId: collection.id, query: 'Vrendolith lanterns', searchType: 'hybrid' as const });
    expect((await search()).results.map((r) => r.content_id)).toContain(content.id);
    const otherCollection = await send(running.transport, messages.createCollection, { ...b, name: 'writing' });

    gate.chunkIds = new Set(chunks.map((c) => c.id));
    gate.contentId = content.id;
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    // The erasure waits for the held removal: under way.
    expect(await send(running.transport, messages.deleteContent, { ...a, contentId: content.id })).toEqual({ contentId: content.id, erasing: true });

    // Gone from every read, though the records still hold its words.
    expect(filesHolding(running.dataDir, 'Vrendolith').length).toBeGreaterThan(0);
    expect((await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items).toEqual([]);
    expect((await send(running.transport, messages.listChunks, { ...a, collectionId: collection.id })).items).toEqual([]);
    expect((await send(running.transport, messages.listChunks, a)).items).toEqual([]);
    expect(await outcome(send(running.transport, messages.getChunk, { ...a, chunkId: chunks[0]!.id }))).toBe('not_found');
    expect((await search()).results).toEqual([]);
    // Another workspace's write is answered within the read-your-writes wait (1 s here): it waits for no removal.
    const written = await send(running.transport, messages.createContent, { ...b, collectionId: otherCollection.id, name: 'small.txt', text: 'A small note.', mimeType: 'text/plain' });
    expect((await send(running.transport, messages.getContent, { ...b, contentId: written.id })).name).toBe('small.txt');
    // And its deletion is erased within that wait: the erasure reactor, which serves every workspace
    // in log order, does not wait for A's purge (it used to, and B's DELETE answered 202 behind it).
    expect(await send(running.transport, messages.deleteContent, { ...b, contentId: written.id })).toEqual({ contentId: written.id, erasing: false });

    // A's stream is erased by now (B's erasure came after it), its chunks still held: a repeated
    // DELETE follows the purge (202), for A only; to B the content does not exist.
    expect(await send(running.transport, messages.deleteContent, { ...a, contentId: content.id })).toEqual({ contentId: content.id, erasing: true });
    expect(await outcome(send(running.transport, messages.deleteContent, { ...b, contentId: content.id }))).toBe('not_found');

    gate.release();
    await until(() => outcome(send(running.transport, messages.deleteContent, { ...a, contentId: content.id })), (code) => code === 'not_found');
    expect(filesHolding(running.dataDir, 'Vrendolith')).toEqual([]);
    expect(filesHolding(running.dataDir, 'Quallmire')).toEqual([]);
  });

  it('of a deleted collection leave every read at once, the workspace\'s other collections stay; then all of it goes', async () => {
    const add = async (collectionId: string, text: string) => {
      const content = await send(running.transport, messages.createContent, { ...a, collectionId, name: 'c.txt', text, mimeType: 'text/plain' });
      await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
      return (await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items;
    };
    const deleted = await send(running.transport, messages.createCollection, { ...a, name: 'going' });
    const kept = await send(running.transport, messages.createCollection, { ...a, name: 'staying' });
    const goingChunks = await add(deleted.id, 'Sprindlewick barges ferry Ombrevale cheese upriver.');
    const keptChunks = await add(kept.id, 'The kept collection speaks of ordinary things.');

    gate.chunkIds = new Set(goingChunks.map((c) => c.id));
    gate.contentId = goingChunks[0]!.content_id;
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    // Its chunks are purged after its erasure, the DELETE waits for that too: under way, and again when repeated.
    expect(await send(running.transport, messages.deleteCollection, { ...a, collectionId: deleted.id })).toEqual({ collectionId: deleted.id, erasing: true });
    expect(await send(running.transport, messages.deleteCollection, { ...a, collectionId: deleted.id })).toEqual({ collectionId: deleted.id, erasing: true });
    expect(await outcome(send(running.transport, messages.deleteCollection, { ...b, collectionId: deleted.id }))).toBe('not_found');

    expect(filesHolding(running.dataDir, 'Sprindlewick').length).toBeGreaterThan(0);
    const listed = async () => (await send(running.transport, messages.listChunks, { ...a, limit: 500 })).items.map((c) => c.id);
    expect(await listed()).toEqual(keptChunks.map((c) => c.id));
    expect(await outcome(send(running.transport, messages.getChunk, { ...a, chunkId: goingChunks[0]!.id }))).toBe('not_found');

    gate.release();
    await until(() => outcome(send(running.transport, messages.deleteCollection, { ...a, collectionId: deleted.id })), (code) => code === 'not_found');
    await until(async () => filesHolding(running.dataDir, 'Sprindlewick'), (files) => files.length === 0, 10_000);
    expect(filesHolding(running.dataDir, 'Ombrevale')).toEqual([]);
    expect((await send(running.transport, messages.listChunks, { ...a, collectionId: kept.id })).items.map((c) => c.id)).toEqual(keptChunks.map((c) => c.id));
  });

  it('of a deleted collection\'s contents are waited for by its DELETE, not only the collection\'s own purge', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...a, name: 'cascading' });
    const content = await send(running.transport, messages.createContent, { ...a, collectionId: collection.id, name: 'k.txt', text: 'Quindlebrook weavers dye wool at the fair.', mimeType: 'text/plain' });
    await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
    // Only the content's own purge is held (its sweep by content): the collection's purge ends.
    gate.chunkIds = new Set();
    gate.contentId = content.id;
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    expect(await send(running.transport, messages.deleteCollection, { ...a, collectionId: collection.id })).toEqual({ collectionId: collection.id, erasing: true });
    expect(await send(running.transport, messages.deleteCollection, { ...a, collectionId: collection.id })).toEqual({ collectionId: collection.id, erasing: true });
    gate.release();
    await until(() => outcome(send(running.transport, messages.deleteCollection, { ...a, collectionId: collection.id })), (code) => code === 'not_found');
    expect(filesHolding(running.dataDir, 'Quindlebrook')).toEqual([]);
  });

  it('page on through a deletion: a cursor taken before it still reads the next page, without the deleted content', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...a, name: 'paged' });
    const chunksOf = async (text: string) => {
      const content = await send(running.transport, messages.createContent, { ...a, collectionId: collection.id, name: 'p.txt', text, mimeType: 'text/plain' });
      await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
      return (await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items;
    };
    const first = await chunksOf('The first content of the paged collection.');
    const second = await chunksOf('The second content, deleted between two pages.');
    const third = await chunksOf('The third content of the paged collection.');
    const page1 = await send(running.transport, messages.listChunks, { ...a, collectionId: collection.id, limit: first.length });
    expect(page1.items.map((c) => c.id)).toEqual(first.map((c) => c.id));

    gate.chunkIds = new Set(second.map((c) => c.id));
    gate.contentId = second[0]!.content_id;
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    await send(running.transport, messages.deleteContent, { ...a, contentId: second[0]!.content_id });
    const page2 = await send(running.transport, messages.listChunks, { ...a, collectionId: collection.id, limit: third.length, cursor: page1.nextCursor! });
    expect(page2.items.map((c) => c.id)).toEqual(third.map((c) => c.id));
    gate.release();
  });

  it('of a reprocessed content\'s earlier attempt leave every read at once; the new attempt writes its chunks once they are removed', async () => {
    const collection = await send(running.transport, messages.createCollection, { ...a, name: 'reprocessed' });
    const content = await send(running.transport, messages.createContent, { ...a, collectionId: collection.id, name: 'r.txt', text: 'Glimmerquay ferries cross the Thornwater at noon.', mimeType: 'text/plain' });
    await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
    const earlier = (await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items;
    expect(earlier.length).toBeGreaterThan(0);
    const search = () => send(running.transport, messages.search, { ...a, collectionId: collection.id, query: 'Glimmerquay ferries', searchType: 'hybrid' as const });

    gate.chunkIds = new Set(earlier.map((c) => c.id));
    gate.contentId = content.id;
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    expect((await send(running.transport, messages.reprocessContent, { ...a, contentId: content.id })).status).toBe('new');
    expect((await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items).toEqual([]);
    expect((await send(running.transport, messages.listChunks, { ...a, collectionId: collection.id })).items).toEqual([]);
    expect(await outcome(send(running.transport, messages.getChunk, { ...a, chunkId: earlier[0]!.id }))).toBe('not_found');
    expect((await search()).results).toEqual([]);
    // The new attempt's chunks have the same ids: written now, the held purge would take them along.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect((await send(running.transport, messages.getContent, { ...a, contentId: content.id })).status).not.toBe('completed');

    gate.release();
    await until(() => send(running.transport, messages.getContent, { ...a, contentId: content.id }), (c) => c.status === 'completed');
    expect((await send(running.transport, messages.listChunks, { ...a, contentId: content.id })).items.map((c) => c.id)).toEqual(earlier.map((c) => c.id));
    expect((await search()).results.map((r) => r.content_id)).toContain(content.id);
  });
});
