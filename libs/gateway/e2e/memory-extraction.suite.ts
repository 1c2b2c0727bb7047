import { until } from '@lore/platform/testing';
import { startTestChatServer, testChatEnv, type ChatCompletionRequestBody, type TestChatServer } from '@lore/platform/chat/contract';
import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

/**
 * The scripted model both topologies' e2e runs talk to (a local OpenAI chat-completions server,
 * https://platform.openai.com/docs/api-reference/chat/create). Facts are what follows the last
 * "FACTS:" of the transcript, split on `|`; decisions follow rules a real model takes from the
 * prompt: a new home updates the old one, "Does not drink tea" invalidates a tea memory, anything
 * else is added. Memories are named by the aliases the prompt shows (m1, m2, …).
 */
export function scriptedMemoryModel(body: ChatCompletionRequestBody): unknown {
  const input = body.messages.at(-1)?.content ?? '';
  if (body.response_format?.json_schema?.name === 'conversation_summary') return { summary: `SUMMARY of ${input.split('\n\n').length} messages` };
  if (body.response_format?.json_schema?.name === 'memory_facts') {
    const listed = input.includes('FACTS:') ? (input.split('FACTS:').at(-1)?.split('\n\n')[0] ?? '') : '';
    return { facts: listed.split('|').map((f) => f.trim()).filter((f) => f !== '').map((fact) => ({ fact, topics: [] })) };
  }
  const { fact, memories } = JSON.parse(input) as { fact: string; memories: { id: string; memory: string }[] };
  const about = (words: string) => memories.find((m) => m.memory.includes(words));
  const home = about('Lives in');
  if (fact.startsWith('Lives in') && home) return { decision: 'update', memory_id: home.id, memory: fact, reason: 'moved: the new city replaces the old one' };
  const tea = about('tea');
  if (fact === 'Does not drink tea' && tea) return { decision: 'invalidate', memory_id: tea.id, memory: null, reason: 'no longer drinks tea' };
  return { decision: 'add', memory_id: null, memory: fact, reason: 'new information' };
}

/** Starts the scripted chat model; its variables go into the Lore under test's environment. */
export async function startMemoryModelStandIn(): Promise<{ server: TestChatServer; env: Record<string, string> }> {
  const server = await startTestChatServer({ apiKey: 'sk-chat-test' });
  server.respondWith(scriptedMemoryModel);
  return { server, env: testChatEnv(server) };
}

/** Memory extraction, its undo, the per-conversation background setting and expiry, over HTTP. */
export function describeMemoryExtraction(lore: () => LoreUnderTest, chat: () => TestChatServer): void {
  describe('memory extraction', () => {
    const user = async () => {
      const id = unique('user');
      return { id, token: await mintJwt(lore().jwtSecret, { sub: id, workspace_id: unique('ws') }) };
    };
    const extract = (token: string, body: Record<string, unknown>) => call(lore(), 'POST', '/api/v1/memories/extract', { token, body });
    const live = async (token: string): Promise<string[]> => (await call(lore(), 'GET', '/api/v1/memories?sort_order=asc', { token })).body.data.map((m: { memory: string }) => m.memory);

    it('adds facts, turns a contradiction into a new version, and undoes it by a new event', async () => {
      const alice = await user();
      const first = await extract(alice.token, { messages: [{ id: 'm-1', role: 'user', content: 'FACTS: Lives in Paris | Loves green tea' }] });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ prompt_version: 'memory-extraction/v1', source_message_ids: ['m-1'] });
      expect(first.body.decisions.map((d: { decision: string }) => d.decision)).toEqual(['add', 'add']);

      const again = await extract(alice.token, { messages: [{ role: 'user', content: 'FACTS: Lives in Paris' }] });
      expect(again.body.decisions[0]).toMatchObject({ decision: 'none', check: 'exact_duplicate' });

      const moved = await extract(alice.token, { messages: [{ id: 'm-2', role: 'user', content: 'FACTS: Lives in Berlin' }] });
      const update = moved.body.decisions[0];
      expect(update).toMatchObject({ decision: 'update', check: 'model', memory: { memory: 'Lives in Berlin', status: 'active' } });
      expect(await live(alice.token)).toEqual(['Lives in Berlin', 'Loves green tea']);

      const history = await call(lore(), 'GET', `/api/v1/memories/${update.memory_id}/history`, { token: alice.token });
      expect(history.body.versions.map((v: { memory: string; decision: { decision: string; source_message_ids: string[] } }) => [v.memory, v.decision.decision, v.decision.source_message_ids])).toEqual([
        ['Lives in Paris', 'add', ['m-1']],
        ['Lives in Berlin', 'update', ['m-2']],
      ]);

      const undone = await call(lore(), 'POST', `/api/v1/memories/${update.memory_id}/decisions/${update.decision_id}/undo`, { token: alice.token, body: {} });
      expect(undone.status).toBe(200);
      expect(undone.body).toMatchObject({ memory: { memory: 'Lives in Paris' }, decision: { decision: 'undo', undoes: update.decision_id } });
      const twice = await call(lore(), 'POST', `/api/v1/memories/${update.memory_id}/decisions/${update.decision_id}/undo`, { token: alice.token, body: {} });
      expect(twice.status).toBe(409);
      const stranger = await user();
      expect((await call(lore(), 'POST', `/api/v1/memories/${update.memory_id}/decisions/${update.decision_id}/undo`, { token: stranger.token, body: {} })).status).toBe(404);
    });

    it('invalidates a memory: out of lists, shown as superseded with its history', async () => {
      const bob = await user();
      await extract(bob.token, { messages: [{ role: 'user', content: 'FACTS: Loves green tea' }] });
      const stopped = await extract(bob.token, { messages: [{ role: 'user', content: 'FACTS: Does not drink tea' }] });
      const decision = stopped.body.decisions[0];
      expect(decision).toMatchObject({ decision: 'invalidate', memory: { status: 'superseded' } });
      expect(await live(bob.token)).toEqual([]);
      expect((await call(lore(), 'GET', `/api/v1/memories/${decision.memory_id}`, { token: bob.token })).body.status).toBe('superseded');
    });

    it("extracts from a conversation's messages, and after each user turn when the conversation asks for it", async () => {
      const carol = await user();
      const conversation = (await call(lore(), 'POST', '/api/v1/conversations', { token: carol.token, body: { title: 'chat' } })).body;
      const said = (await call(lore(), 'POST', `/api/v1/conversations/${conversation.id}/messages`, { token: carol.token, body: { role: 'user', content: 'FACTS: Works at Acme' } })).body;
      const fromConversation = await extract(carol.token, { conversation_id: conversation.id });
      expect(fromConversation.status).toBe(200);
      expect(fromConversation.body.source_message_ids).toEqual([said.id]);
      expect(await live(carol.token)).toEqual(['Works at Acme']);
      expect((await extract(carol.token, { conversation_id: unique('conv') })).status).toBe(404);

      const background = (await call(lore(), 'POST', '/api/v1/conversations', { token: carol.token, body: { memory_extraction: 'after_user_turn' } })).body;
      expect(background.memory_extraction).toBe('after_user_turn');
      await call(lore(), 'POST', `/api/v1/conversations/${background.id}/messages`, { token: carol.token, body: { role: 'user', content: 'FACTS: Plays the cello' } });
      await until(() => live(carol.token), (items) => items.includes('Plays the cello'), 20_000);
    });

    it('refuses both or neither of messages and conversation_id, and says when the model fails', async () => {
      const dave = await user();
      expect((await extract(dave.token, {})).status).toBe(422);
      expect((await extract(dave.token, { messages: [{ role: 'user', content: 'x' }], conversation_id: 'c' })).status).toBe(422);
      chat().script({ content: 'not json at all' });
      const failed = await extract(dave.token, { messages: [{ role: 'user', content: 'FACTS: Likes jazz' }] });
      expect(failed.status).toBe(503);
      expect(failed.body.detail).toContain('not JSON');
      expect(await live(dave.token)).toEqual([]);
    });

    it('takes a memory out of lists at its expires_at', async () => {
      const erin = await user();
      const expiresAt = new Date(Date.now() + 1_500).toISOString();
      const created = await call(lore(), 'POST', '/api/v1/memories', { token: erin.token, body: { memory: 'Parked on level 2', expires_at: expiresAt } });
      expect(created.status).toBe(201);
      expect(created.body.memory.expires_at).toBe(expiresAt);
      expect(await live(erin.token)).toEqual(['Parked on level 2']);
      await until(() => live(erin.token), (items) => items.length === 0, 10_000);
      expect((await call(lore(), 'GET', `/api/v1/memories/${created.body.memory_id}`, { token: erin.token })).status).toBe(404);
    });

    it('compacts the older messages that do not fit into a summary, cached per branch, on request', async () => {
      const frank = await user();
      const conversation = (await call(lore(), 'POST', '/api/v1/conversations', { token: frank.token, body: {} })).body;
      for (let i = 1; i <= 6; i++) {
        const role = i % 2 === 1 ? 'user' : 'assistant';
        await call(lore(), 'POST', `/api/v1/conversations/${conversation.id}/messages`, { token: frank.token, body: { role, content: `turn ${i}: ${'lorem ipsum dolor sit amet '.repeat(8)}` } });
      }
      const context = (body: Record<string, unknown>) => call(lore(), 'POST', `/api/v1/conversations/${conversation.id}/context`, { token: frank.token, body: { max_tokens: 200, memory_limit: 0, chunk_limit: 0, ...body } });
      const plain = await context({});
      expect(plain.body.summary).toBeNull();
      const kept = plain.body.messages.length;
      expect(kept).toBeLessThan(6);

      const calls = chat().requests.length;
      const compacted = await context({ compact: true });
      expect(compacted.status).toBe(200);
      expect(compacted.body.summary).toMatchObject({ message_count: 6 - compacted.body.messages.length, text: `SUMMARY of ${6 - compacted.body.messages.length} messages`, cached: false });
      expect(compacted.body.context).toContain('## Earlier in the conversation (summary)');
      expect(compacted.body.total_tokens).toBeLessThanOrEqual(200);
      expect(chat().requests.length).toBe(calls + 1);

      const again = await context({ compact: true });
      expect(again.body.summary).toMatchObject({ through_message_id: compacted.body.summary.through_message_id, cached: true });
      expect(chat().requests.length).toBe(calls + 1);
    });
  });
}
