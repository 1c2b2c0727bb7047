import { randomBytes } from 'node:crypto';
import { Keyring } from '@lore/platform/crypto';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { RecordedEvent } from '@lore/platform/kernel';
import type { Doc } from '@lore/platform/documents/port';
import type { ProjectionContext } from '@lore/platform/projections';
import { projectionSpec, recordedEvent } from '@lore/platform/testing';
import { contentChecksum, conversationSeals, type ConversationSeals, type MessageContent } from './conversation-content';
import { conversationsProjection } from './conversations.projection';

/** Conversations and messages in the clear, built from sealed events; delivered at least once, rebuilt from the log. */
describe('conversations projection', () => {
  let seals: ConversationSeals;
  let keyring: Keyring;
  const at = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;
  const stream = 'conversation-conv_1';
  const keys = new Map<string, string>();

  beforeAll(async () => {
    keyring = await Keyring.open(openSqliteDocumentStore({ path: ':memory:' }), randomBytes(32));
    seals = conversationSeals(keyring);
  });

  const started = async () => {
    const key = await seals.conversations.newKey();
    const content = seals.conversations.seal('conv_1', { title: 'Tides', tags: ['sea'], metadata: { a: 1 } }, key);
    return recordedEvent(stream, 'conversations.ConversationStarted', { conversationId: 'conv_1', workspaceId: 'ws', userId: 'alice', createdBy: 'user:alice', status: 'active', collectionIds: ['col_1'], content, createdAt: at(0) }, at(0));
  };
  const message = (text: string): MessageContent => ({ content: text, checksum: contentChecksum(text), tool_calls: [], attachments: [], tags: [], meta_data: {} });
  const appended = async (messageId: string, parentMessageId: string | null, n: number) => {
    const key = await seals.messages.newKey();
    keys.set(messageId, key.keyId);
    const text = message(`text of ${messageId}`);
    const content = seals.messages.seal(messageId, text, key);
    const checksum = seals.checksums.seal(messageId, text.checksum, key);
    return nth(n, recordedEvent(stream, 'conversations.MessageAppended', { conversationId: 'conv_1', messageId, parentMessageId, role: 'user', messageType: 'text', senderId: 'alice', clientMessageId: null, editOf: null, content, checksum, sentAt: at(n), createdAt: at(n) }, at(n)));
  };
  const messagesDeleted = (messageIds: string[], currentMessageId: string | null, n: number) =>
    nth(n, recordedEvent(stream, 'conversations.MessagesDeleted', { conversationId: 'conv_1', messageIds, currentMessageId, deletedAt: at(n) }, at(n)));

  /** The n-th event of the conversation's stream (the start is the 0th). */
  const nth = (n: number, event: RecordedEvent): RecordedEvent => ({ ...event, revision: n });
  const spec = () => projectionSpec(conversationsProjection(seals));

  it('opens what it stores and counts messages on the conversation', async () => {
    const events = [await started(), await appended('m1', null, 1), await appended('m2', 'm1', 2)];
    const docs = await spec().given(events).thenDocuments({
      conversations: [expect.objectContaining({ id: 'conv_1', title: 'Tides', tags: ['sea'], message_count: 2, current_message_id: 'm2', last_message_at: at(2), updated_at: at(2) })],
      conversation_messages: [
        expect.objectContaining({ id: 'm1', content: 'text of m1', owner_id: 'alice', workspace_id: 'ws', parent_message_id: null, checksum: contentChecksum('text of m1') }),
        expect.objectContaining({ id: 'm2', parent_message_id: 'm1' }),
      ],
    });
    expect(docs['conversation_messages']).toHaveLength(2);
  });

  it('counts a redelivered message once', async () => {
    const first = [await started(), await appended('m1', null, 1)];
    await spec()
      .given(first)
      .whenRedelivered(first.slice(1))
      .thenDocuments({ conversations: [expect.objectContaining({ message_count: 1 })], conversation_messages: [expect.objectContaining({ id: 'm1' })] });
  });

  it('is unchanged by a redelivered start or message deletion: nothing reset, nothing counted twice', async () => {
    const events = [await started(), await appended('m1', null, 1), await appended('m2', 'm1', 2), messagesDeleted(['m2'], 'm1', 3)];
    const [start, , , deletion] = events;
    if (start === undefined || deletion === undefined) throw new Error('no events');
    await spec().given(events).whenRedelivered([start, deletion]).thenUnchanged();
  });

  it('takes deleted messages off the count and records their purge; a rebuild after their keys were shredded recreates nothing of them, nor a purge', async () => {
    const events = [await started(), await appended('m1', null, 1), await appended('m2', 'm1', 2), messagesDeleted(['m2'], 'm1', 3)];
    // The messages themselves go afterwards, by the purge worker (message-purges.int.spec.ts), not in the projection's batch.
    const purge = expect.objectContaining({ id: 'subtree:m2', workspace_id: 'ws', owner_id: 'alice', conversation_id: 'conv_1', message_ids: ['m2'] });
    const conversations = [expect.objectContaining({ message_count: 1, current_message_id: 'm1' })];
    const given = spec().given(events);
    await given.thenDocuments({ conversations, conversation_messages: [expect.objectContaining({ id: 'm1' }), expect.objectContaining({ id: 'm2' })], message_purges: [purge] });
    await keyring.shred([keys.get('m2') ?? '']);
    await given.whenReplayed().thenDocuments({ conversations, conversation_messages: [expect.objectContaining({ id: 'm1' })], message_purges: [] });
  });

  it('records a deletion\'s purge again when only part of its batch was stored (an engine without transactions) and it is delivered again', async () => {
    const deletion = messagesDeleted(['m2'], 'm1', 3);
    const events = [await started(), await appended('m1', null, 1), await appended('m2', 'm1', 2), deletion];
    const docs = new Map<string, Doc>();
    const context: ProjectionContext = {
      get: async <T extends Doc>(collection: string, id: string) => (docs.get(`${collection}/${id}`) as T | undefined) ?? null,
      upsert: (collection, doc) => void docs.set(`${collection}/${doc.id}`, doc),
      delete: (collection, id) => void docs.delete(`${collection}/${id}`),
      deleteMany: () => undefined,
    };
    const projection = conversationsProjection(seals);
    for (const event of events) await projection.handle(event, context);
    // The conversation's new count was stored, its purge record was not.
    docs.delete('message_purges/subtree:m2');
    await projection.handle(deletion, context);
    expect(docs.get('message_purges/subtree:m2')).toEqual(expect.objectContaining({ message_ids: ['m2'], conversation_id: 'conv_1' }));
    expect(docs.get('conversations/conv_1')).toEqual(expect.objectContaining({ message_count: 1 }));
  });
});
