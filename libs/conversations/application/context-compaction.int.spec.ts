import { send } from '@lore/platform/transport/port';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { startTestChatServer, testChatEnv, type TestChatServer } from '@lore/platform/chat/contract';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { conversationStreamId } from '@lore/conversations/domain';
import { conversationsContext } from './conversations.context';
import { conversationSeals } from './conversation-content';
import { CONVERSATION_SUMMARIES } from './conversation-summaries.projection';

/** Context compaction on the conversations service alone (no memories or passages asked for), with a local chat-completions server. */
describe('context compaction', () => {
  let running: RunningContext;
  let chat: TestChatServer;
  const messages = conversationMessages(conversationsConfig.parse({}));
  const scope = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice', collections: null };
  const SECRET = 'the-summary-text-zebra';

  beforeAll(async () => {
    chat = await startTestChatServer({ apiKey: 'sk-chat-test' });
    chat.respondWith(() => ({ summary: SECRET }));
    running = await startContext(conversationsContext, testChatEnv(chat));
  });
  afterAll(async () => {
    await running.stop();
    await chat.close();
  });

  it('seals the cached summary under the through-message key, and erases it with any message it covers', async () => {
    const conversation = await send(running.transport, messages.create, { ...scope, title: 't' });
    const ids: string[] = [];
    for (let i = 1; i <= 6; i++) ids.push((await send(running.transport, messages.append, { ...scope, conversationId: conversation.id, content: `turn ${i} ${'words '.repeat(40)}` })).message.id);
    const context = () => send(running.transport, messages.context, { ...scope, conversationId: conversation.id, sources: { memories: false, collections: false }, maxTokens: 150, memoryLimit: 0, chunkLimit: 0, compact: true });
    const first = await context();
    expect(first.summary).toMatchObject({ text: SECRET, cached: false });
    const through = first.summary?.through_message_id ?? '';

    const stores = await running.openStores();
    try {
      const events = await stores.events.readStream(conversationStreamId(conversation.id));
      expect(events.map((e) => e.type)).toContain('conversations.BranchSummarised');
      expect(JSON.stringify(events.map((e) => e.data))).not.toContain(SECRET);
      expect(await stores.documents.collection(CONVERSATION_SUMMARIES).get(through)).not.toBeNull();
    } finally {
      await stores.close();
    }

    // Deleting a covered message takes its subtree, the through-message with it: the summary goes too.
    await send(running.transport, messages.deleteMessage, { ...scope, messageId: ids[1] ?? '' });
    const after = await running.openStores();
    try {
      expect(await after.documents.collection(CONVERSATION_SUMMARIES).get(through)).toBeNull();
      const summarised = (await after.events.readStream(conversationStreamId(conversation.id))).find((e) => e.type === 'conversations.BranchSummarised');
      const sealed = (summarised?.data as { content?: string } | undefined)?.content ?? '';
      await expect(conversationSeals(after.keyring).summaries.open(through, sealed)).rejects.toMatchObject({ code: 'not_found' });
    } finally {
      await after.close();
    }
  });
});
