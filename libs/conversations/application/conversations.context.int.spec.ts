import { join } from 'node:path';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { AppError } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { sealedKeyId } from '@lore/platform/crypto';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { conversationStreamId, upcastConversationEvent } from '@lore/conversations/domain';
import { conversationsContext } from './conversations.context';

/** The conversations service on its own, called on the transport as any client on NATS would. */
describe('conversations context, called directly on the transport', () => {
  let running: RunningContext;
  const env = { CONVERSATION_MESSAGE_MAX_CHARS: '200', CONVERSATION_MAX_TAGS: '2' };
  // The same configuration the service reads from this environment.
  const messages = conversationMessages(conversationsConfig.parse(env));
  const scope = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice', collections: null };
  const sources = { memories: true, collections: true };

  beforeAll(async () => {
    running = await startContext(conversationsContext, env);
  });
  afterAll(async () => {
    await running.stop();
  });

  const create = () => send(running.transport, messages.create, { ...scope, title: 't' });
  const append = (conversationId: string, content: string, more: Record<string, unknown> = {}) =>
    send(running.transport, messages.append, { ...scope, conversationId, content, ...more });
  const withStores = async <T>(use: (stores: Awaited<ReturnType<RunningContext['openStores']>>) => Promise<T>): Promise<T> => {
    const stores = await running.openStores();
    try {
      return await use(stores);
    } finally {
      await stores.close();
    }
  };
  const failure = (promise: Promise<unknown>): Promise<AppError> => promise.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as AppError);

  it('lets 40 concurrent appends to one conversation all through, as one linear path', async () => {
    const conversation = await create();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => append(conversation.id, `message ${i}`)));
    expect(results.every((r) => r.created)).toBe(true);
    const path = await send(running.transport, messages.conversationMessages, { ...scope, conversationId: conversation.id });
    expect(path.total).toBe(40);
    // Each append continued the path as it stood when it was decided: a chain, every parent the message before.
    path.items.forEach((message, i) => expect(message.parent_message_id).toBe(i === 0 ? null : path.items[i - 1]?.id));
    expect((await send(running.transport, messages.get, { ...scope, conversationId: conversation.id })).message_count).toBe(40);
  });

  it('stores one message for concurrent retries of the same client message id', async () => {
    const conversation = await create();
    const results = await Promise.all(Array.from({ length: 8 }, () => append(conversation.id, 'hello', { clientMessageId: 'c-1' })));
    expect(new Set(results.map((r) => r.message.id)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const error = await failure(append(conversation.id, 'something else', { clientMessageId: 'c-1' }));
    expect(error.code).toBe('conflict');
  });

  it('recognises a retry by checksum, role, sender and parent, and checks a sent checksum', async () => {
    const conversation = await create();
    const first = await append(conversation.id, 'same words');
    const retry = await append(conversation.id, 'same words');
    expect(retry).toEqual({ message: first.message, created: false });
    const reply = await append(conversation.id, 'same words', { role: 'assistant' });
    expect(reply.created).toBe(true);
    const wrong = await failure(append(conversation.id, 'x', { checksum: 'a'.repeat(64) }));
    expect(wrong.issues[0]?.loc).toEqual(['message', 'checksum']);
  });

  it('spends no data key on a retry or a refused write: the keyring deletes nothing', async () => {
    const conversation = await create();
    await append(conversation.id, 'said twice');
    // The keyring's file, read beside the running context.
    const keyring = openSqliteDocumentStore({ path: join(running.dataDir, 'conversations', 'keyring.db'), durability: 'full' });
    try {
      const stored = () => keyring.collection('data_keys').count();
      const before = await stored();
      expect((await append(conversation.id, 'said twice')).created).toBe(false);
      expect(await stored()).toBe(before);
      // Another user's conversation, and one that does not exist.
      expect((await failure(send(running.transport, messages.append, { ...scope, userId: 'mallory', actor: 'user:mallory', conversationId: conversation.id, content: 'hi' }))).code).toBe('not_found');
      expect((await failure(append('conv_missing', 'hi'))).code).toBe('not_found');
      expect(await stored()).toBe(before);
    } finally {
      await keyring.close();
    }
  });

  it("answers a change of another user's conversation 404 before asking about the collections it names", async () => {
    const conversation = await create();
    // No knowledge service runs here: asking it about the collections could not be answered.
    const refused = await failure(send(running.transport, messages.update, { ...scope, userId: 'mallory', actor: 'user:mallory', conversationId: conversation.id, collectionIds: ['col_00000000000000000000000000'] }, { timeoutMs: 2_000 }));
    expect(refused.code).toBe('not_found');
  });

  it('enforces the configured limits for any caller', async () => {
    const conversation = await create();
    const tooLong = await failure(append(conversation.id, 'x'.repeat(201)));
    expect(tooLong.code).toBe('validation');
    expect(tooLong.issues.map((i) => i.loc)).toContainEqual(['message', 'content']);
    const tags = await failure(append(conversation.id, 'ok', { tags: ['a', 'b', 'c'] }));
    expect(tags.issues.map((i) => i.loc)).toContainEqual(['message', 'tags']);
  });

  it('shreds exactly the deleted messages\' keys, and every key of a deleted conversation with its stream', async () => {
    const conversation = await create();
    const kept = await append(conversation.id, 'kept');
    const gone = await append(conversation.id, 'gone');
    const reply = await append(conversation.id, 'reply to gone');
    const keyOf = new Map<string, string>();
    let conversationKey = '';
    await withStores(async (stores) => {
      for (const recorded of await stores.events.readStream(conversationStreamId(conversation.id))) {
        const event = upcastConversationEvent(recorded);
        if (event.type === 'conversations.MessageAppended') keyOf.set(event.data.messageId, sealedKeyId(event.data.content));
        if (event.type === 'conversations.ConversationStarted') conversationKey = sealedKeyId(event.data.content);
      }
    });
    // A keyring caches the keys it has read: each check opens the stores afresh, as another process would.
    const keyExists = (keyId: string | undefined) => withStores(async (stores) => (await stores.keyring.get(keyId ?? '')) !== null);

    const deleted = await send(running.transport, messages.deleteMessage, { ...scope, messageId: gone.message.id });
    expect(deleted.deletedMessages).toBe(2); // with its reply
    expect([await keyExists(keyOf.get(gone.message.id)), await keyExists(keyOf.get(reply.message.id)), await keyExists(keyOf.get(kept.message.id))]).toEqual([false, false, true]);
    expect((await send(running.transport, messages.get, { ...scope, conversationId: conversation.id })).current_message_id).toBe(kept.message.id);

    await send(running.transport, messages.delete, { ...scope, conversationId: conversation.id });
    expect([await keyExists(conversationKey), await keyExists(keyOf.get(kept.message.id))]).toEqual([false, false]);
    expect(await withStores((stores) => stores.events.readStream(conversationStreamId(conversation.id)))).toEqual([]);
  });

  it('answers the next turn\'s context from the conversation alone when memory and knowledge are not reachable', async () => {
    const conversation = await create();
    await append(conversation.id, 'first question about tides');
    await append(conversation.id, 'an answer', { role: 'assistant' });
    const context = await send(running.transport, messages.context, { ...scope, conversationId: conversation.id, sources, maxTokens: 1_000 });
    expect(context.query).toBe('first question about tides');
    expect(context.messages.map((m) => m.content)).toEqual(['first question about tides', 'an answer']);
    expect(context.warnings.join(' ')).toMatch(/memories not searched/);
    expect(context.total_tokens).toBeLessThanOrEqual(1_000);
    const tiny = await send(running.transport, messages.context, { ...scope, conversationId: conversation.id, sources, maxTokens: 12 });
    expect(tiny.total_tokens).toBeLessThanOrEqual(12);
    expect(tiny.omitted.messages).toBeGreaterThan(0);
    const none = await send(running.transport, messages.context, { ...scope, conversationId: conversation.id, sources, messageLimit: 0 });
    expect(none.messages).toEqual([]);
  });

  it('keeps the whole context within max_tokens with the estimate too (no model here), joins included', async () => {
    const conversation = await create();
    // Lines of 9 characters: 3 tokens each by the estimate, but 10 with the join that follows.
    for (let i = 0; i < 150; i++) await append(conversation.id, `ab${i % 10}`);
    const context = await send(running.transport, messages.context, { ...scope, conversationId: conversation.id, sources, maxTokens: 400, messageLimit: 150 });
    expect(context.tokenizer.exact).toBe(false);
    expect(context.total_tokens).toBeLessThanOrEqual(400);
    expect(context.messages.length).toBeGreaterThan(5);
  });

  it('searches no memories and no passages the caller may not read', async () => {
    const conversation = await create();
    await append(conversation.id, 'a question');
    const context = await send(running.transport, messages.context, { ...scope, conversationId: conversation.id, sources: { memories: false, collections: false } });
    expect(context.warnings).toContain('memories not searched: the API key lacks memories:read');
    expect(context.memories).toEqual([]);
  });
});
