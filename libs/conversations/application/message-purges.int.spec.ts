import { send } from '@lore/platform/transport/port';
import { DeletionGate, filesHolding, holdingReactor, outcome, startContext, until, withContextDeps, type RunningContext } from '@lore/platform/testing';
import type { DocumentStore } from '@lore/platform/documents/port';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { conversationsContext } from './conversations.context';
import { MESSAGES } from './conversations.read-models';
import { CONVERSATION_ERASURE } from './conversation-erasure.reactor';

const messages = conversationMessages(conversationsConfig.parse({}));
const a = { workspaceId: 'ws_deleting', userId: 'alice', actor: 'user:alice', collections: null };
const b = { workspaceId: 'ws_writing', userId: 'bob', actor: 'user:bob', collections: null };

/** Deletions of messages' documents wait here when held. */
const gate = new DeletionGate(MESSAGES);
/** The engine's forgetting of deleted documents (WAL truncation) waits until `release`. */
const truncation = { opened: Promise.resolve(), release: (): void => undefined };

/**
 * A deleted conversation's messages leave every read with the deletion and are removed from the
 * read models afterwards by the purge worker: another workspace's appends never wait for that
 * removal (they used to wait for the projection's batch that removed them: 4.4 s for 20,000
 * messages), and the conversation's erasure does.
 */
describe('the messages of a deleted conversation', () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(gate.around(conversationsContext), { READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
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

    gate.hold(appended.map((m) => m.id));
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

/**
 * A deleted message's replies (its subtree) go the same way: the projection records their
 * purge instead of removing them in its batch (a message with 19,999 replies held another
 * workspace's appends 3.5 s), every read leaves them out at once, and the DELETE waits for
 * their removal (202 when that outlasts the wait).
 */
describe("a deleted message's subtree", () => {
  let running: RunningContext;
  beforeAll(async () => {
    const gated = withContextDeps(gate.around(conversationsContext), (deps) => {
      const purgeDeleted = deps.documents.purgeDeleted.bind(deps.documents);
      deps.documents.purgeDeleted = async () => {
        await truncation.opened;
        return purgeDeleted();
      };
      return deps;
    });
    running = await startContext(gated, { READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    gate.release();
    truncation.release();
    await running.stop();
  });

  it('leaves every read at once, while another workspace keeps appending; the DELETE follows its removal', async () => {
    const conversation = await send(running.transport, messages.create, { ...a, title: 'branching' });
    const append = async (content: string, parentMessageId?: string) =>
      (await send(running.transport, messages.append, { ...a, conversationId: conversation.id, content, ...(parentMessageId === undefined ? {} : { parentMessageId }) })).message;
    const root = await append('The root stays.');
    const doomed = await append('Vorpelline question', root.id);
    const replies = [await append('Vorpelline answer', doomed.id)];
    replies.push(await append('Vorpelline follow-up', replies[0]!.id));
    const kept = await append('A sibling that stays.', root.id);
    const other = await send(running.transport, messages.create, { ...b, title: 'writing' });
    const list = { skip: 0, sortBy: 'created_at', sortOrder: 'asc' } as const;
    const contents = (items: readonly { content: string }[]) => items.map((m) => m.content);
    const firstPage = await send(running.transport, messages.listMessages, { ...a, ...list, limit: 1 });

    gate.hold([doomed, ...replies].map((m) => m.id));
    // Its removal is held: the erasure is under way.
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: doomed.id })).toEqual({ messageId: doomed.id, deletedMessages: 3, erasing: true });

    // Gone from every read, though the read models still hold its words.
    expect(filesHolding(running.dataDir, 'Vorpelline').length).toBeGreaterThan(0);
    for (const scope of [{}, { conversationId: conversation.id }]) {
      const page = await send(running.transport, messages.listMessages, { ...a, ...list, ...scope, limit: 100 });
      expect({ items: contents(page.items), total: page.total }).toEqual({ items: ['The root stays.', 'A sibling that stays.'], total: 2 });
      const search = await send(running.transport, messages.listMessages, { ...a, ...list, ...scope, limit: 100, search: 'Vorpelline' });
      expect({ items: search.items, total: search.total }).toEqual({ items: [], total: 0 });
    }
    // A cursor taken before the deletion reads on past the subtree.
    const next = await send(running.transport, messages.listMessages, { ...a, ...list, limit: 1, cursor: firstPage.nextCursor! });
    expect({ items: contents(next.items), total: next.total }).toEqual({ items: ['A sibling that stays.'], total: 2 });
    for (const message of [doomed, ...replies]) {
      expect(await outcome(send(running.transport, messages.getMessage, { ...a, messageId: message.id }))).toBe('not_found');
      expect(await outcome(send(running.transport, messages.updateMessage, { ...a, messageId: message.id, tags: [] }))).toBe('not_found');
    }
    const branches = await send(running.transport, messages.conversationMessages, { ...a, conversationId: conversation.id, includeBranches: true, skip: 0, limit: 100 });
    expect({ items: contents(branches.items), total: branches.total }).toEqual({ items: ['The root stays.', 'A sibling that stays.'], total: 2 });
    expect(await outcome(send(running.transport, messages.conversationMessages, { ...a, conversationId: conversation.id, includeBranches: false, leafId: replies[1]!.id, skip: 0, limit: 100 }))).toBe('not_found');
    const exported = await send(running.transport, messages.export, { ...a, conversationId: conversation.id, format: 'json' });
    expect(contents(exported.messages)).toEqual(['The root stays.', 'A sibling that stays.']);
    expect((await send(running.transport, messages.get, { ...a, conversationId: conversation.id })).message_count).toBe(2);
    // Another workspace's append is answered within the read-your-writes wait (1 s here).
    expect((await send(running.transport, messages.append, { ...b, conversationId: other.id, content: 'A small note.' })).message.content).toBe('A small note.');

    // Repeated, by any message of it, it is still under way, for its owner only.
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: replies[1]!.id })).toEqual({ messageId: replies[1]!.id, deletedMessages: 0, erasing: true });
    expect(await outcome(send(running.transport, messages.deleteMessage, { ...a, userId: 'mallory', actor: 'user:mallory', messageId: doomed.id }))).toBe('not_found');

    gate.release();
    await until(() => outcome(send(running.transport, messages.deleteMessage, { ...a, messageId: doomed.id })), (code) => code === 'not_found');
    expect(await outcome(send(running.transport, messages.getMessage, { ...a, messageId: kept.id }))).toBe('resolved');
    // The purge truncates the WAL after its last page.
    await until(async () => filesHolding(running.dataDir, 'Vorpelline'), (files) => files.length === 0, 10_000);
  });

  it('pages by offset over what is shown: the subtree\'s messages take no place', async () => {
    const conversation = await send(running.transport, messages.create, { ...a, title: 'offsets' });
    const append = async (content: string, parentMessageId?: string) =>
      (await send(running.transport, messages.append, { ...a, conversationId: conversation.id, content, ...(parentMessageId === undefined ? {} : { parentMessageId }) })).message;
    const root = await append('R');
    const doomed = [await append('D', root.id)];
    for (let i = 0; i < 4; i++) doomed.push(await append(`D${i}`, doomed.at(-1)!.id));
    for (const sibling of ['S1', 'S2', 'S3']) await append(sibling, root.id);
    gate.hold(doomed.map((m) => m.id));
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: doomed[0]!.id })).toEqual({ messageId: doomed[0]!.id, deletedMessages: 5, erasing: true });
    const pages = [];
    for (const skip of [0, 2, 4]) {
      const page = await send(running.transport, messages.listMessages, { ...a, conversationId: conversation.id, skip, limit: 2, sortBy: 'created_at', sortOrder: 'asc' });
      pages.push({ items: page.items.map((m) => m.content), total: page.total });
    }
    expect(pages).toEqual([
      { items: ['R', 'S1'], total: 4 },
      { items: ['S2', 'S3'], total: 4 },
      { items: [], total: 4 },
    ]);
    gate.release();
  });

  it('answers a repeated DELETE of the deleted message as under way until its purge has ended, not only its documents', async () => {
    const conversation = await send(running.transport, messages.create, { ...a, title: 'truncation' });
    const message = (await send(running.transport, messages.append, { ...a, conversationId: conversation.id, content: 'Gone before the WAL is.' })).message;
    gate.hold([message.id]);
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: message.id })).toEqual({ messageId: message.id, deletedMessages: 1, erasing: true });
    // Erased; then its document is removed, and the purge's last step (the WAL's truncation) held.
    truncation.opened = new Promise((resolve) => (truncation.release = resolve));
    gate.release();
    await until(() => gate.documents.collection(MESSAGES).get(message.id), (doc) => doc === null);
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: message.id })).toEqual({ messageId: message.id, deletedMessages: 0, erasing: true });
    expect(await outcome(send(running.transport, messages.deleteMessage, { ...b, messageId: message.id }))).toBe('not_found');
    truncation.release();
    await until(() => outcome(send(running.transport, messages.deleteMessage, { ...a, messageId: message.id })), (code) => code === 'not_found');
  });

  it('removes a subtree in pages: a repeated DELETE of the deleted message follows them to the last', async () => {
    const conversation = await send(running.transport, messages.create, { ...a, title: 'long thread' });
    // More replies than one page of the purge (100), the last of them held (oldest go first).
    const thread: { readonly id: string }[] = [];
    for (let i = 0, parentMessageId: string | undefined; i < 150; i++) {
      const message = (await send(running.transport, messages.append, { ...a, conversationId: conversation.id, content: `Reply ${i}`, ...(parentMessageId === undefined ? {} : { parentMessageId }) })).message;
      thread.push(message);
      parentMessageId = message.id;
    }
    gate.hold([thread.at(-1)!.id]);
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: thread[0]!.id })).toEqual({ messageId: thread[0]!.id, deletedMessages: 150, erasing: true });
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: thread[0]!.id })).toEqual({ messageId: thread[0]!.id, deletedMessages: 0, erasing: true });
    // A reply the first page removed: still under way too, for its owner.
    await until(() => gate.documents.collection(MESSAGES).get(thread[1]!.id), (doc) => doc === null);
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: thread[1]!.id })).toEqual({ messageId: thread[1]!.id, deletedMessages: 0, erasing: true });
    expect(await outcome(send(running.transport, messages.deleteMessage, { ...a, userId: 'mallory', actor: 'user:mallory', messageId: thread[1]!.id }))).toBe('not_found');
    gate.release();
    await until(() => outcome(send(running.transport, messages.deleteMessage, { ...a, messageId: thread[0]!.id })), (code) => code === 'not_found');
    expect((await send(running.transport, messages.get, { ...a, conversationId: conversation.id })).message_count).toBe(0);
  });
});

/**
 * A purge ends after the deletion's erasure (which does not wait for it): with the messages'
 * documents gone, a DELETE repeated then waits for the purge alone and finds the erasure done.
 */
describe('a message purge and the erasure', () => {
  let running: RunningContext;
  let documents: DocumentStore;
  let erasure: { release(): void };
  beforeAll(async () => {
    const held = holdingReactor(
      withContextDeps(conversationsContext, (deps) => {
        documents = deps.documents;
        return deps;
      }),
      CONVERSATION_ERASURE,
    );
    erasure = held;
    running = await startContext(held.definition, { READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    erasure.release();
    await running.stop();
  });

  it('removes nothing until the erasure has passed the deletion', async () => {
    const conversation = await send(running.transport, messages.create, { ...a, title: 'erased first' });
    const message = (await send(running.transport, messages.append, { ...a, conversationId: conversation.id, content: 'Kept until erased.' })).message;
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: message.id })).toEqual({ messageId: message.id, deletedMessages: 1, erasing: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await documents.collection(MESSAGES).get(message.id)).not.toBeNull();
    expect(await send(running.transport, messages.deleteMessage, { ...a, messageId: message.id })).toEqual({ messageId: message.id, deletedMessages: 0, erasing: true });
    erasure.release();
    await until(() => outcome(send(running.transport, messages.deleteMessage, { ...a, messageId: message.id })), (code) => code === 'not_found');
    expect(await documents.collection(MESSAGES).get(message.id)).toBeNull();
  });
});
