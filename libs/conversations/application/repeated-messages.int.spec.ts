import { randomBytes } from 'node:crypto';
import { Keyring, SealedFields } from '@lore/platform/crypto';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { conversationDecider, type ConversationEvent, type LiveConversation } from '@lore/conversations/domain';
import { RepeatedMessages, type NewMessage } from './repeated-messages';

describe('RepeatedMessages', () => {
  const owner = { workspaceId: 'ws_1', userId: 'alice' } as const;
  const at = '2026-01-01T00:00:00.000Z';
  let sealed: SealedFields<string>;
  let opened: string[];

  beforeEach(async () => {
    const keyring = await Keyring.open(openSqliteDocumentStore({ path: ':memory:' }), randomBytes(32));
    sealed = new SealedFields<string>(keyring, 'Message');
    opened = [];
    const open = sealed.open.bind(sealed);
    sealed.open = (id, value) => (opened.push(id), open(id, value));
  });

  /** A conversation ending at m1, whose checksum is sealed as a write would seal it. */
  async function conversationEndingAt(checksum: string): Promise<LiveConversation> {
    const key = await sealed.newKey();
    const events: ConversationEvent[] = [
      { type: 'conversations.ConversationStarted', data: { conversationId: 'conv_1', ...owner, createdBy: 'user:alice', status: 'active', collectionIds: [], content: 'sealed-c', createdAt: at } },
      {
        type: 'conversations.MessageAppended',
        data: { conversationId: 'conv_1', messageId: 'm1', parentMessageId: null, role: 'user', messageType: 'text', senderId: 'alice', clientMessageId: null, editOf: null, content: 'sealed-m1', checksum: sealed.seal('m1', checksum, key), sentAt: at, createdAt: at },
      },
    ];
    return events.reduce(conversationDecider.evolve, conversationDecider.initialState()) as LiveConversation;
  }
  const retryOf = (checksum: string): NewMessage => ({ kind: 'append', parentMessageId: null, role: 'user', messageType: 'text', senderId: 'alice', clientMessageId: null, sentAt: null, content: { content: 'x', checksum, tool_calls: [], attachments: [], tags: [], meta_data: {} } });

  it('finds the repeat of the message a write just sealed without opening its checksum', async () => {
    const repeated = new RepeatedMessages(sealed);
    const conversation = await conversationEndingAt('sum-1');
    repeated.remember(conversation, 'm1', 'sum-1');
    expect(await repeated.find(conversation, retryOf('sum-1'))).toBe('m1');
    expect(await repeated.find(conversation, retryOf('sum-2'))).toBeNull();
    expect(opened).toEqual([]);
  });

  it('opens the checksum for any other state of the conversation, and keeps nothing it opened', async () => {
    const repeated = new RepeatedMessages(sealed);
    const conversation = await conversationEndingAt('sum-1');
    expect(await repeated.find(conversation, retryOf('sum-2'))).toBeNull();
    expect(await repeated.find(conversation, retryOf('sum-1'))).toBe('m1');
    expect(opened).toEqual(['m1', 'm1']);
    repeated.remember(conversation, 'm1', 'sum-1');
    const foldedAgain = await conversationEndingAt('sum-1');
    expect(await repeated.find(foldedAgain, retryOf('sum-1'))).toBe('m1');
    expect(opened).toEqual(['m1', 'm1', 'm1']);
  });
});
