import { send } from '@lore/platform/transport/port';
import { holdingReactor, recordingEventStore, startContext, until, withContextDeps, type RecordedStoreCall, type RunningContext } from '@lore/platform/testing';
import { conversationMessages, conversationsConfig } from '@lore/conversations/contracts';
import { conversationStreamId } from '@lore/conversations/domain';
import { conversationsContext } from './conversations.context';
import { CONVERSATION_ERASURE } from './conversation-erasure.reactor';

const messages = conversationMessages(conversationsConfig.parse({}));
const scope = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice', collections: null };

/** A DELETE repeated while the first one's erasure is still pending waits for that erasure, without reading the whole conversation for it. */
describe('a repeated conversation delete', () => {
  let running: RunningContext;
  let calls: RecordedStoreCall[] = [];
  const held = holdingReactor(
    withContextDeps(conversationsContext, (deps) => {
      const recording = recordingEventStore(deps.events);
      calls = recording.calls;
      return { ...deps, events: recording.store };
    }),
    CONVERSATION_ERASURE,
  );
  beforeAll(async () => {
    running = await startContext(held.definition);
  });
  afterAll(() => running.stop());

  it('reads no whole stream, and answers as before once the erasure is done', async () => {
    const conversation = await send(running.transport, messages.create, { ...scope, title: 'to delete' });
    for (let i = 0; i < 5; i++) await send(running.transport, messages.append, { ...scope, conversationId: conversation.id, content: `message ${i}` });
    const streamId = conversationStreamId(conversation.id);
    const first = send(running.transport, messages.delete, { ...scope, conversationId: conversation.id });
    let answered = false;
    void first.then(() => (answered = true));
    const stores = await running.openStores();
    try {
      await until(() => stores.events.readStream(streamId), (events) => events.at(-1)?.type === 'conversations.ConversationDeleted', 5_000);
    } finally {
      await stores.close();
    }
    const repeat = send(running.transport, messages.delete, { ...scope, conversationId: conversation.id }, { requestId: 'repeated-delete' });
    // The first waits for the erasure held back, as the repeat does.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(answered).toBe(false);
    held.release();
    expect(await first).toEqual({ conversationId: conversation.id, deletedMessages: 5 });
    expect(await repeat).toEqual({ conversationId: conversation.id, deletedMessages: 0 });
    const repeatReads = calls.filter((c) => c.requestId === 'repeated-delete' && c.op === 'readStream');
    expect(repeatReads.length).toBeGreaterThan(0);
    expect(repeatReads.filter((c) => c.op === 'readStream' && c.whole)).toEqual([]);
  });
});
