import { AppError } from '@lore/platform/kernel';
import { send } from '@lore/platform/transport/port';
import { projectionSpec, startContext, type RunningContext } from '@lore/platform/testing';
import { startTestEmbeddingServer, testEmbeddingEnv, type TestEmbeddingServer } from '@lore/platform/embeddings/contract';
import { startTestChatServer, testChatEnv, type ChatCompletionRequestBody, type TestChatServer } from '@lore/platform/chat/contract';
import { memoryMessages } from '@lore/memory/contracts';
import { memoryContext } from './memory.context';
import { memoriesProjection } from './memories.projection';
import { MEMORIES } from './memory.read-models';

const messages = memoryMessages({ maxMemoryChars: 1000, maxTopics: 5, maxTopicChars: 50, maxMetadataBytes: 1024 });
const alice = { workspaceId: 'ws', userId: 'alice', actor: 'user:alice' };

/**
 * The scripted model: facts are the user message's sentences after "FACTS:", split on `|`; a
 * decision follows the rules below, which a real model would follow from the prompt. Mentions of
 * the memories it was shown are by alias (m1, m2, …), as the prompt asks.
 */
function scriptedModel(body: ChatCompletionRequestBody): unknown {
  const input = body.messages.at(-1)?.content ?? '';
  if (body.response_format?.json_schema?.name === 'memory_facts') {
    const listed = /FACTS:(.*)$/s.exec(input)?.[1] ?? '';
    return { facts: listed.split('|').map((f) => f.trim()).filter((f) => f !== '').map((fact) => ({ fact, topics: [] })) };
  }
  const { fact, memories } = JSON.parse(input) as { fact: string; memories: { id: string; memory: string }[] };
  const about = (word: string) => memories.find((m) => m.memory.includes(word));
  if (fact.startsWith('Lives in')) {
    const home = about('Lives in');
    if (home) return { decision: 'update', memory_id: home.id, memory: fact, reason: 'moved: the new city replaces the old one' };
  }
  if (fact === 'Does not drink tea') {
    const tea = about('tea');
    if (tea) return { decision: 'invalidate', memory_id: tea.id, memory: null, reason: 'no longer drinks tea' };
  }
  if (fact === 'Is named Alice') return { decision: 'none', memory_id: 'm9', memory: null, reason: 'a hallucinated memory' };
  return { decision: 'add', memory_id: null, memory: fact, reason: 'new information' };
}

describe('memory extraction with a scripted model (local OpenAI chat-completions server)', () => {
  let running: RunningContext;
  let embedder: TestEmbeddingServer;
  let chat: TestChatServer;
  const decisionCalls = () => chat.requests.filter((r) => r.body.response_format?.json_schema?.name === 'memory_decision').length;
  const extract = (id: string, facts: string[]) =>
    send(running.transport, messages.extract, { ...alice, messages: [{ id, role: 'user', content: `FACTS: ${facts.join(' | ')}` }], conversationId: 'conv_1', memoryType: 'user' });
  const live = async () => (await send(running.transport, messages.list, { ...alice, sortBy: 'created_at', sortOrder: 'asc', skip: 0, limit: 100 })).items.map((m) => m.memory);

  beforeAll(async () => {
    [embedder, chat] = await Promise.all([startTestEmbeddingServer(), startTestChatServer({ apiKey: 'sk-chat-test' })]);
    chat.respondWith(scriptedModel);
    running = await startContext(memoryContext, { ...testEmbeddingEnv(embedder), ...testChatEnv(chat) });
  });
  afterAll(async () => {
    await running.stop();
    await Promise.all([embedder.close(), chat.close()]);
  });

  it('adds proposed facts, each decision naming the source messages, the model and the prompt version', async () => {
    const reply = await extract('msg_1', ['Lives in Paris', 'Loves green tea']);
    expect(reply.decisions.map((d) => [d.decision, d.check, d.memory?.memory])).toEqual([
      ['add', 'no_similar_memory', 'Lives in Paris'],
      ['add', 'model', 'Loves green tea'],
    ]);
    expect(reply).toMatchObject({ model: 'scripted-model-2026-01-01', prompt_version: 'memory-extraction/v1', source_message_ids: ['msg_1'] });
    expect(reply.usage.prompt_tokens).toBeGreaterThan(0);
    expect(await live()).toEqual(['Lives in Paris', 'Loves green tea']);
  });

  it('decides exact and near duplicates before and without the model', async () => {
    const before = decisionCalls();
    const reply = await extract('msg_2', ['lives in paris.', 'Loves, green tea']);
    expect(reply.decisions.map((d) => [d.decision, d.check])).toEqual([
      ['none', 'exact_duplicate'],
      ['none', 'near_duplicate'],
    ]);
    expect(reply.decisions[1]?.similarity).toBeGreaterThanOrEqual(0.95);
    expect(decisionCalls()).toBe(before);
    expect(await live()).toEqual(['Lives in Paris', 'Loves green tea']);
  });

  it('turns a contradicting fact into a new version and a superseded one, never two live memories', async () => {
    const reply = await extract('msg_3', ['Lives in Berlin']);
    const [decision] = reply.decisions;
    expect(decision).toMatchObject({ decision: 'update', check: 'model', reason: 'moved: the new city replaces the old one' });
    expect(await live()).toEqual(['Lives in Berlin', 'Loves green tea']);
    const { versions } = await send(running.transport, messages.history, { ...alice, memoryId: decision?.memory_id ?? '' });
    expect(versions.map((v) => [v.version, v.event, v.memory, v.decision?.decision])).toEqual([
      [1, 'created', 'Lives in Paris', 'add'],
      [2, 'replaced', 'Lives in Berlin', 'update'],
    ]);
    expect(versions[1]?.decision).toMatchObject({
      source_message_ids: ['msg_3'],
      conversation_id: 'conv_1',
      model: 'scripted-model-2026-01-01',
      prompt_version: 'memory-extraction/v1',
      fact: 'Lives in Berlin',
    });
  });

  it('invalidates a memory a fact says is no longer true: out of lists and search, kept with its history', async () => {
    const reply = await extract('msg_4', ['Does not drink tea']);
    const tea = reply.decisions[0];
    expect(tea).toMatchObject({ decision: 'invalidate', memory: { memory: 'Loves green tea', status: 'superseded' } });
    expect(await live()).toEqual(['Lives in Berlin']);
    const found = await send(running.transport, messages.search, { ...alice, query: 'green tea', limit: 10 });
    expect(found.results.map((r) => r.memory.memory)).not.toContain('Loves green tea');
    const { versions } = await send(running.transport, messages.history, { ...alice, memoryId: tea?.memory_id ?? '' });
    expect(versions.map((v) => v.event)).toEqual(['created', 'invalidated']);
  });

  it('fails clearly, changing nothing, when the model names a memory it was not shown', async () => {
    const error = await extract('msg_5', ['Is named Alice']).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('unavailable');
    expect((error as AppError).message).toContain('none of the');
    expect(await live()).toEqual(['Lives in Berlin']);
  });

  it('undoes a decision by a new event: an invalidation reinstated, an update restored; only the latest', async () => {
    const all = await send(running.transport, messages.export, alice);
    const tea = all.memories.find((m) => m.memory === 'Loves green tea');
    const home = all.memories.find((m) => m.memory === 'Lives in Berlin');
    const invalidation = tea?.history.at(-1)?.decision?.decision_id ?? '';
    const update = home?.history.at(-1)?.decision?.decision_id ?? '';
    const firstAdd = home?.history[0]?.decision?.decision_id ?? '';

    const older = await send(running.transport, messages.undoDecision, { ...alice, memoryId: home?.memory_id ?? '', decisionId: firstAdd }).catch((e: unknown) => e);
    expect((older as AppError).code).toBe('conflict');

    const reinstated = await send(running.transport, messages.undoDecision, { ...alice, memoryId: tea?.memory_id ?? '', decisionId: invalidation });
    expect(reinstated.memory.status).toBe('active');
    const restored = await send(running.transport, messages.undoDecision, { ...alice, memoryId: home?.memory_id ?? '', decisionId: update });
    expect(restored.memory.memory).toBe('Lives in Paris');
    expect(await live()).toEqual(['Lives in Paris', 'Loves green tea']);
    const { versions } = await send(running.transport, messages.history, { ...alice, memoryId: home?.memory_id ?? '' });
    expect(versions.at(-1)).toMatchObject({ version: 3, event: 'replaced', memory: 'Lives in Paris', decision: { decision: 'undo', undoes: update, check: 'user' } });
  });

  it('replays the decisions from the log to the same memories, without calling the model', async () => {
    const calls = chat.requests.length;
    const stores = await running.openStores();
    try {
      const events = (await stores.events.readAll()).filter((e) => e.streamId.startsWith('memory-'));
      const current = (await stores.documents.collection(MEMORIES).find({ sort: [['id', 'asc']] })).items;
      expect(current.length).toBeGreaterThan(0);
      await projectionSpec(memoriesProjection).given(events, { oneBatch: true }).thenDocuments({ [MEMORIES]: current });
    } finally {
      await stores.close();
    }
    expect(chat.requests.length).toBe(calls);
  });

  it('stores no fact, reason or memory text in the clear in its events', async () => {
    const stores = await running.openStores();
    try {
      const logged = JSON.stringify((await stores.events.readAll()).map((e) => [e.type, e.data, e.metadata]));
      for (const text of ['Berlin', 'Paris', 'green tea', 'moved: the new city', 'no longer drinks tea']) expect(logged).not.toContain(text);
    } finally {
      await stores.close();
    }
  });

  it('answers 503 naming the variable when no chat model is configured', async () => {
    const bare = await startContext(memoryContext, testEmbeddingEnv(embedder));
    try {
      const error = await send(bare.transport, messages.extract, { ...alice, messages: [{ role: 'user', content: 'FACTS: x' }], memoryType: 'user' }).catch((e: unknown) => e);
      expect((error as AppError).code).toBe('unavailable');
      expect((error as AppError).message).toContain('CHAT_OPENAI_BASE_URL');
    } finally {
      await bare.stop();
    }
  });
});
