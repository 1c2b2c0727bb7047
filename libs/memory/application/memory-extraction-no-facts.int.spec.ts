import { requestMetadata } from '@lore/platform/kernel';
import type { Keyring } from '@lore/platform/crypto';
import { send } from '@lore/platform/transport/port';
import { startContext, withContextDeps, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, testEmbeddingEnv, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { startTestChatServer, testChatEnv, type TestChatServer } from '@lore/platform/chat/contract';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const alice = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };

/**
 * The keyring the context builds on, noting the request each data key is looked up for (to open
 * a sealed memory, the key is asked for first: `cached`, then `get`).
 */
function keyLookups(keyring: Keyring, requests: (string | undefined)[]): Keyring {
  return new Proxy(keyring, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if ((property !== 'cached' && property !== 'get') || typeof value !== 'function') return value;
      return (keyId: string) => {
        requests.push(requestMetadata().requestId);
        return (value as (id: string) => unknown).call(target, keyId);
      };
    },
  });
}

/** An extraction whose model proposes no fact reconciles nothing, so it opens none of the user's memories. */
describe('memory extraction that finds no facts', () => {
  let running: RunningContext;
  let embedder: TestEmbeddingServer;
  let chat: TestChatServer;
  const lookups: (string | undefined)[] = [];

  beforeAll(async () => {
    [embedder, chat] = await Promise.all([startTestEmbeddingServer(), startTestChatServer({ apiKey: 'sk-chat-test' })]);
    chat.respondWith(() => ({ facts: [] }));
    running = await startContext(
      withContextDeps(memoryContext, (deps) => ({ ...deps, keyring: keyLookups(deps.keyring, lookups) })),
      { ...testEmbeddingEnv(embedder), ...testChatEnv(chat) },
    );
  });
  afterAll(async () => {
    await running.stop();
    await Promise.all([embedder.close(), chat.close()]);
  });

  it('answers with no decisions, and opens no memory', async () => {
    for (const memory of ['Lives in Paris', 'Loves green tea', 'Has a cat']) await send(running.transport, messages.create, { ...alice, memory, memoryType: 'user' });
    const reply = await send(
      running.transport,
      messages.extract,
      { ...alice, messages: [{ id: 'msg_1', role: 'user', content: 'Nothing worth remembering here.' }], conversationId: 'conv_1', memoryType: 'user' },
      { requestId: 'extract-no-facts' },
    );
    expect(reply).toEqual({
      extraction_id: expect.stringMatching(/^ext_/),
      model: 'scripted-model-2026-01-01',
      prompt_version: 'memory-extraction/v1',
      source_message_ids: ['msg_1'],
      decisions: [],
      dropped_facts: 0,
      usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) },
    });
    expect(lookups.filter((request) => request === 'extract-no-facts')).toEqual([]);
  });
});
