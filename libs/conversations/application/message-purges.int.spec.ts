import { send } from '@lore/platform/transport/port';
import { filesHolding, outcome, startContext, until, withContextDeps, type RunningContext } from '@lore/platform/testing';
import type { DocumentWrite } from '@lore/platform/documents/port';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { conversationsContext } from './conversations.context';
import { MESSAGES } from './conversations.read-models';

const messages = conversationMessages(conversationsConfig.parse({}));
const a = { workspaceId: 'ws_deleting', userId: 'alice', actor: 'user:alice', collections: null };
const b = { workspaceId: 'ws_writing', userId: 'bob', actor: 'user:bob', collections: null };

/** Deletions of these messages' documents wait until `release`: the real store behind a gate. */
const gate = { ids: new Set<string>(), opened: Promise.resolve(), release: (): void => undefined };

/**
 * A deleted conversation's messages leave every read with the deletion and are removed from the
 * read models afterwards by the purge worker: another workspace's appends never wait for that
 * removal (they used to wait for the projection's batch that removed them: 4.4 s for 20,000
 * messages), and the conversation's erasure does.
 */
describe('the messages of a deleted conversation', () => {
  let running: RunningContext;
  beforeAll(async () => {
    const gated = withContextDeps(conversationsContext, (deps) => {
      const write = deps.documents.write.bind(deps.documents);
      const held = (w: DocumentWrite): boolean => w.collection === MESSAGES && w.op === 'delete' && gate.ids.has(w.id);
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

  it('leave every read at once, while another workspace keeps appending; their removal and the erasure follow', async () => {
    const doomed = await send(running.transport, messages.create, { ...a, title: 'doomed' });
    const kept = await send(running.transport, messages.create, { ...a, title: 'kept' });
    const appended = [];
    for (let i = 0; i < 3; i++) appended.push((await send(running.transport, messages.append, { ...a, conversationId: doomed.id, content: `Quillibrant ferries number ${i}` })).message);
    await send(running.transport, messages.append, { ...a, conversationId: kept.id, content: 'An ordinary note that stays.' });
    const other = await send(running.transport, messages.create, { ...b, title: 'writing' });
    const othersMessage = (await send(running.transport, messages.append, { ...b, conversationId: other.id, content: 'To be deleted meanwhile.' })).message;
    const list = { skip: 0, sortBy: 'created_at', sortOrder: 'asc' } as const;
    const listed = async () => (await send(running.transport, messages.listMessages, { ...a, ...list, limit: 100 })).items.map((m) => m.content);
    expect(await listed()).toEqual(['Quillibrant ferries number 0', 'Quillibrant ferries number 1', 'Quillibrant ferries number 2', 'An ordinary note that stays.']);
    // A cursor taken before the deletion still reads the next page, without the deleted conversation's messages.
    const firstPage = await send(running.transport, messages.listMessages, { ...a, ...list, limit: 1 });

    gate.ids = new Set(appended.map((m) => m.id));
    gate.opened = new Promise((resolve) => (gate.release = resolve));
    // The erasure waits for the held removal: under way.
    expect(await send(running.transport, messages.delete, { ...a, conversationId: doomed.id })).toEqual({ conversationId: doomed.id, deletedMessages: 3, erasing: true });

    // Gone from every read, though the read models still hold its words.
    expect(filesHolding(running.dataDir, 'Quillibrant').length).toBeGreaterThan(0);
    expect(await listed()).toEqual(['An ordinary note that stays.']);
    const next = await send(running.transport, messages.listMessages, { ...a, ...list, limit: 1, cursor: firstPage.nextCursor! });
    expect({ items: next.items.map((m) => m.content), total: next.total }).toEqual({ items: ['An ordinary note that stays.'], total: 1 });
    const search = await send(running.transport, messages.listMessages, { ...a, ...list, limit: 100, search: 'Quillibrant' });
    expect({ items: search.items, total: search.total }).toEqual({ items: [], total: 0 });
    expect(await outcome(send(running.transport, messages.getMessage, { ...a, messageId: appended[0]!.id }))).toBe('not_found');
    expect(await outcome(send(running.transport, messages.updateMessage, { ...a, messageId: appended[0]!.id, tags: [] }))).toBe('not_found');
    expect(await outcome(send(running.transport, messages.conversationMessages, { ...a, conversationId: doomed.id }))).toBe('not_found');
    // Another workspace's append is answered within the read-your-writes wait (1 s here): it waits for no removal.
    expect((await send(running.transport, messages.append, { ...b, conversationId: other.id, content: 'A small note.' })).message.content).toBe('A small note.');
    // And its own erasures do not queue behind this purge: a message's DELETE (with the reply after it) is answered, erased.
    expect(await send(running.transport, messages.deleteMessage, { ...b, messageId: othersMessage.id })).toEqual({ messageId: othersMessage.id, deletedMessages: 2 });

    // Repeated, it is still under way (its stream may be erased already), for its owner only.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await send(running.transport, messages.delete, { ...a, conversationId: doomed.id })).toEqual({ conversationId: doomed.id, deletedMessages: 0, erasing: true });
    expect(await outcome(send(running.transport, messages.delete, { ...a, userId: 'mallory', actor: 'user:mallory', conversationId: doomed.id }))).toBe('not_found');

    gate.release();
    await until(() => outcome(send(running.transport, messages.delete, { ...a, conversationId: doomed.id })), (code) => code === 'not_found');
    // The purge truncates the WAL after its last page.
    await until(async () => filesHolding(running.dataDir, 'Quillibrant'), (files) => files.length === 0, 10_000);
  });
});
