import { deciderSpec } from '@lore/platform/testing';
import { childrenOf, conversationDecider, pathTo, type ConversationCommand, type LiveConversation } from './conversation.decider';
import type { ConversationEvent } from './conversation.events';

const owner = { workspaceId: 'ws_1', userId: 'alice' } as const;
const T = (n: number) => `2026-01-01T00:00:${String(n).padStart(2, '0')}.000Z`;
const spec = deciderSpec(conversationDecider);

const started: ConversationEvent = {
  type: 'conversations.ConversationStarted',
  data: { conversationId: 'conv_1', ...owner, createdBy: 'user:alice', status: 'active', collectionIds: [], content: 'sealed-c', createdAt: T(0) },
};
const appendedEvent = (messageId: string, parentMessageId: string | null, extra: Partial<Extract<ConversationEvent, { type: 'conversations.MessageAppended' }>['data']> = {}): ConversationEvent => ({
  type: 'conversations.MessageAppended',
  data: {
    conversationId: 'conv_1',
    messageId,
    parentMessageId,
    role: 'user',
    messageType: 'text',
    senderId: 'alice',
    clientMessageId: null,
    editOf: null,
    content: `sealed-${messageId}`,
    checksum: `sealed-sum-${messageId}`,
    sentAt: T(1),
    createdAt: T(1),
    ...extra,
  },
});
const append = (messageId: string, over: Partial<Extract<ConversationCommand, { kind: 'append' }>> = {}): ConversationCommand => ({
  kind: 'append',
  ...owner,
  messageId,
  parentMessageId: null,
  duplicateOf: null,
  role: 'user',
  messageType: 'text',
  senderId: 'alice',
  clientMessageId: null,
  content: `sealed-${messageId}`,
  checksum: `sealed-sum-${messageId}`,
  sentAt: T(1),
  at: T(1),
  ...over,
});
const archived: ConversationEvent = { type: 'conversations.ConversationUpdated', data: { conversationId: 'conv_1', status: 'archived', updatedAt: T(2) } };
const live = (state: unknown): LiveConversation => state as LiveConversation;

/** A user message m1, an assistant reply m2, and a regenerated reply m3 (sibling of m2): current m3. */
const tree = [started, appendedEvent('m1', null), appendedEvent('m2', 'm1', { role: 'assistant' }), appendedEvent('m3', 'm1', { role: 'assistant' })];

describe('conversationDecider', () => {
  it('starts a conversation once', () => {
    const start: ConversationCommand = { kind: 'start', conversationId: 'conv_1', ...owner, createdBy: 'user:alice', status: 'active', collectionIds: [], content: 'sealed-c', at: T(0) };
    spec.given([]).when(start).then([started]);
    spec.given([started]).when(start).thenThrows('conflict');
  });

  it('records the memory-extraction setting only when it changes, and folds it (off by default)', () => {
    const start: ConversationCommand = { kind: 'start', conversationId: 'conv_1', ...owner, createdBy: 'user:alice', status: 'active', collectionIds: [], memoryExtraction: 'after_user_turn', content: 'sealed-c', at: T(0) };
    const on = { ...started, data: { ...started.data, memoryExtraction: 'after_user_turn' as const } };
    spec.given([]).when(start).then([on]);
    expect(live(spec.given([started]).state).memoryExtraction).toBe('off');
    expect(live(spec.given([on]).state).memoryExtraction).toBe('after_user_turn');
    const turnOff: ConversationCommand = { kind: 'update', ...owner, memoryExtraction: 'off', at: T(2) };
    spec.given([on]).when(turnOff).then([{ type: 'conversations.ConversationUpdated', data: { conversationId: 'conv_1', memoryExtraction: 'off', updatedAt: T(2) } }]);
    spec.given([started]).when(turnOff).thenNothingHappened();
  });

  it("marks a user's message for extraction while the setting is on, and no other message", () => {
    const on = { ...started, data: { ...started.data, memoryExtraction: 'after_user_turn' as const } };
    spec.given([on]).when(append('m1')).then([appendedEvent('m1', null, { extractMemories: true })]);
    spec.given([on, appendedEvent('m1', null)]).when(append('m2', { role: 'assistant' })).then([appendedEvent('m2', 'm1', { role: 'assistant' })]);
    spec.given([started]).when(append('m1')).then([appendedEvent('m1', null)]);
  });

  describe('append', () => {
    it('continues the active path when no parent is given', () => {
      spec.given([started]).when(append('m1')).then([appendedEvent('m1', null)]);
      const state = live(spec.given([started, appendedEvent('m1', null)]).when(append('m2')).then([appendedEvent('m2', 'm1')]));
      expect(state.currentMessageId).toBe('m2');
      expect(pathTo(state, 'm2').map((m) => m.messageId)).toEqual(['m1', 'm2']);
    });

    it('appends under an explicit parent as a sibling branch and moves the active path to it', () => {
      const state = live(spec.given(tree).when(append('m4', { parentMessageId: 'm1', role: 'assistant' })).then([appendedEvent('m4', 'm1', { role: 'assistant' })]));
      expect(childrenOf(state, 'm1').map((m) => m.messageId)).toEqual(['m2', 'm3', 'm4']);
      expect(state.currentMessageId).toBe('m4');
    });

    it('refuses a parent that is not in the conversation, naming the field', () => {
      const error = spec.given(tree).when(append('m4', { parentMessageId: 'nope' })).thenThrows('validation');
      expect(error.issues[0]?.loc).toEqual(['message', 'parentMessageId']);
    });

    it('appends nothing for a retried client message id or a known duplicate that ends the active path', () => {
      const withClientId = [started, appendedEvent('m1', null, { clientMessageId: 'c-1' })];
      spec.given(withClientId).when(append('m9', { clientMessageId: 'c-1' })).thenNothingHappened();
      spec.given(tree).when(append('m9', { duplicateOf: 'm3' })).thenNothingHappened();
    });

    it('moves the active path back to a repeated message, as its first attempt did', () => {
      const state = live(
        spec.given(tree).when(append('m9', { duplicateOf: 'm2' })).then([
          { type: 'conversations.CurrentMessageSelected', data: { conversationId: 'conv_1', messageId: 'm2', selectedAt: T(1) } },
        ]),
      );
      expect(state.currentMessageId).toBe('m2');
    });

    it('leaves the active path where it is when it runs through the repeated message (a late retry)', () => {
      spec.given(tree).when(append('m9', { duplicateOf: 'm1' })).thenNothingHappened();
    });

    it('answers a retry in an archived conversation with the message, not a conflict', () => {
      const withClientId = [started, appendedEvent('m1', null, { clientMessageId: 'c-1' }), appendedEvent('m2', 'm1'), archived];
      spec.given(withClientId).when(append('m9', { clientMessageId: 'c-1' })).thenNothingHappened();
    });

    it('frees the client id of a deleted message', () => {
      const deleted: ConversationEvent = { type: 'conversations.MessagesDeleted', data: { conversationId: 'conv_1', messageIds: ['m1'], currentMessageId: null, deletedAt: T(3) } };
      spec.given([started, appendedEvent('m1', null, { clientMessageId: 'c-1' }), deleted]).when(append('m9', { clientMessageId: 'c-1' })).then([appendedEvent('m9', null, { clientMessageId: 'c-1' })]);
    });

    it('refuses appends to an archived conversation and to another user', () => {
      spec.given([...tree, archived]).when(append('m4')).thenThrows('conflict');
      spec.given(tree).when(append('m4', { userId: 'bob' })).thenThrows('not_found');
      spec.given(tree).when(append('m4', { workspaceId: 'ws_2' })).thenThrows('not_found');
    });
  });

  describe('edit', () => {
    it('makes a sibling of the edited message with the same parent', () => {
      const edit: ConversationCommand = { ...(append('m4') as object), kind: 'edit', editOf: 'm2' } as ConversationCommand;
      const state = live(spec.given(tree).when(edit).then([appendedEvent('m4', 'm1', { editOf: 'm2' })]));
      expect(state.currentMessageId).toBe('m4');
    });
  });

  describe('delete-message', () => {
    it('deletes the subtree and moves the active path to the parent when it ran through it', () => {
      const deleteM1: ConversationCommand = { kind: 'delete-message', ...owner, messageId: 'm1', at: T(5) };
      const state = live(
        spec.given(tree).when(deleteM1).then([
          { type: 'conversations.MessagesDeleted', data: { conversationId: 'conv_1', messageIds: ['m1', 'm3', 'm2'], currentMessageId: null, deletedAt: T(5) } },
        ]),
      );
      expect(childrenOf(state, null)).toEqual([]);
    });

    it('keeps the active path when it does not run through the deleted branch', () => {
      const deleteM2: ConversationCommand = { kind: 'delete-message', ...owner, messageId: 'm2', at: T(5) };
      spec.given(tree).when(deleteM2).then([{ type: 'conversations.MessagesDeleted', data: { conversationId: 'conv_1', messageIds: ['m2'], currentMessageId: 'm3', deletedAt: T(5) } }]);
    });

    it('is a no-op the second time and 404 for an unknown message', () => {
      const deleted: ConversationEvent = { type: 'conversations.MessagesDeleted', data: { conversationId: 'conv_1', messageIds: ['m2'], currentMessageId: 'm3', deletedAt: T(5) } };
      spec.given([...tree, deleted]).when({ kind: 'delete-message', ...owner, messageId: 'm2', at: T(6) }).thenNothingHappened();
      spec.given(tree).when({ kind: 'delete-message', ...owner, messageId: 'nope', at: T(6) }).thenThrows('not_found');
    });
  });

  describe('update', () => {
    it('switches the active branch to a live message', () => {
      const state = live(
        spec.given(tree).when({ kind: 'update', ...owner, currentMessageId: 'm2', at: T(7) }).then([
          { type: 'conversations.CurrentMessageSelected', data: { conversationId: 'conv_1', messageId: 'm2', selectedAt: T(7) } },
        ]),
      );
      expect(pathTo(state, state.currentMessageId).map((m) => m.messageId)).toEqual(['m1', 'm2']);
      spec.given(tree).when({ kind: 'update', ...owner, currentMessageId: 'nope', at: T(7) }).thenThrows('validation');
    });

    it('records only what changed', () => {
      spec.given(tree).when({ kind: 'update', ...owner, status: 'active', at: T(7) }).thenNothingHappened();
      spec.given(tree).when({ kind: 'update', ...owner, status: 'archived', at: T(7) }).then([
        { type: 'conversations.ConversationUpdated', data: { conversationId: 'conv_1', status: 'archived', updatedAt: T(7) } },
      ]);
    });
  });

  describe('delete', () => {
    it('deletes once for its owner, then changes nothing', () => {
      const deleted: ConversationEvent = { type: 'conversations.ConversationDeleted', data: { conversationId: 'conv_1', ...owner, deletedAt: T(9) } };
      spec.given(tree).when({ kind: 'delete', ...owner, at: T(9) }).then([deleted]);
      spec.given([...tree, deleted]).when({ kind: 'delete', ...owner, at: T(10) }).thenNothingHappened();
      spec.given([...tree, deleted]).when({ kind: 'delete', workspaceId: 'ws_1', userId: 'bob', at: T(10) }).thenThrows('not_found');
    });
  });
});
