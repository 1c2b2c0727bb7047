import { call, unique, type LoreUnderTest, type Reply } from './e2e-client';
import { locs } from './knowledge-fixtures';
import { conversation, idsOf, ordered, person, say, sha256, sleep } from './conversations.suite';

/** Messages over HTTP (SPEC §2.5, §4.7): appending, retries, branches, edits, deletion and the message list. */
export function describeConversationMessages(lore: () => LoreUnderTest): void {
  describe('conversation messages', () => {
    const append = (token: string, conversationId: string, body: Record<string, unknown>): Promise<Reply> => call(lore(), 'POST', `/api/v1/conversations/${conversationId}/messages`, { token, body });
    const getConversation = async (token: string, id: string): Promise<any> => (await call(lore(), 'GET', `/api/v1/conversations/${id}`, { token })).body;
    const path = async (token: string, id: string, query = ''): Promise<Reply> => call(lore(), 'GET', `/api/v1/conversations/${id}/messages${query}`, { token });

    it('appends messages to the active path with the documented fields and defaults', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const first = await append(alice.token, conv.id, { content: 'Hello there' });
      expect(first.status).toBe(201);
      expect(first.body).toMatchObject({
        conversation_id: conv.id,
        sender_id: alice.id,
        owner_id: alice.id,
        workspace_id: alice.workspace,
        content: 'Hello there',
        role: 'user',
        message_type: 'text',
        tool_calls: [],
        tags: [],
        checksum: sha256('Hello there'),
        attachments: [],
        parent_message_id: null,
        meta_data: {},
        client_message_id: null,
        edit_of: null,
      });
      expect(Date.parse(first.body.sent_at)).not.toBeNaN();
      const sentAt = '2024-05-01T10:00:00.000Z';
      const second = await say(lore(), alice.token, conv.id, {
        content: 'Hi! 👋 ünïcode',
        role: 'assistant',
        message_type: 'tool_call',
        sender_id: 'bot-1',
        tool_calls: [{ id: 'c1', name: 'search', arguments: { q: 'x' } }],
        attachments: [{ url: 'https://example.test/a.png', type: 'image/png' }],
        tags: ['greeting'],
        meta_data: { model: 'm1' },
        sent_at: sentAt,
        checksum: sha256('Hi! 👋 ünïcode'),
      });
      expect(second).toMatchObject({ parent_message_id: first.body.id, role: 'assistant', message_type: 'tool_call', sender_id: 'bot-1', owner_id: alice.id, tags: ['greeting'], meta_data: { model: 'm1' } });
      expect(second.tool_calls).toEqual([{ id: 'c1', name: 'search', arguments: { q: 'x' } }]);
      expect(second.attachments).toEqual([{ url: 'https://example.test/a.png', type: 'image/png' }]);
      expect(Date.parse(second.sent_at)).toBe(Date.parse(sentAt));
      const third = await say(lore(), alice.token, conv.id, { content: 'Thanks', parent_message_id: null });
      expect(third.parent_message_id).toBe(second.id);
      expect((await call(lore(), 'GET', `/api/v1/messages/${second.id}`, { token: alice.token })).body).toEqual(second);
      const after = await getConversation(alice.token, conv.id);
      expect(after).toMatchObject({ message_count: 3, current_message_id: third.id });
      expect(after.last_message_at).not.toBeNull();
      const listed = await path(alice.token, conv.id);
      expect(listed.status).toBe(200);
      expect(idsOf(listed.body.data)).toEqual([first.body.id, second.id, third.id]);
      expect(listed.body).toMatchObject({ total_count: 3, current_message_id: third.id, has_more: false });
      expect((await append(alice.token, unique('conv'), { content: 'x' })).status).toBe(404);
    });

    it('checks the checksum: the SHA-256 of the content passes (any case), anything else is 422 at body.checksum', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      expect((await append(alice.token, conv.id, { content: 'abc', checksum: sha256('abc').toUpperCase() })).status).toBe(201);
      for (const checksum of [sha256('abd'), 'deadbeef', 'z'.repeat(64)]) {
        const reply = await append(alice.token, conv.id, { content: 'abc second', checksum });
        expect({ checksum, status: reply.status }).toEqual({ checksum, status: 422 });
        expect(locs(reply)).toEqual([['body', 'checksum']]);
      }
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(1);
      const edited = await call(lore(), 'PATCH', `/api/v1/messages/${(await getConversation(alice.token, conv.id)).current_message_id}`, { token: alice.token, body: { content: 'new', checksum: sha256('old') } });
      expect(edited.status).toBe(422);
      expect(locs(edited)).toEqual([['body', 'checksum']]);
    });

    it('returns the first message for a retried append (same client_message_id, or same checksum, role, sender and parent)', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const root = await say(lore(), alice.token, conv.id, { content: 'root' });
      const first = await say(lore(), alice.token, conv.id, { content: 'question?', client_message_id: 'c-1' });
      const retries = await Promise.all(Array.from({ length: 5 }, () => append(alice.token, conv.id, { content: 'question?', client_message_id: 'c-1' })));
      for (const r of retries) expect(r.body).toEqual(first);
      // Even when the active path moved on, and with an explicit parent.
      const reply = await say(lore(), alice.token, conv.id, { content: 'answer', role: 'assistant' });
      expect((await append(alice.token, conv.id, { content: 'question?', client_message_id: 'c-1' })).body.id).toBe(first.id);
      const reused = await append(alice.token, conv.id, { content: 'another question', client_message_id: 'c-1' });
      expect(reused.status).toBe(409);
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(3);

      // Without a client id: the same content by the same role and sender right after it is a retry.
      const noId = await say(lore(), alice.token, conv.id, { content: 'follow-up' });
      expect((await say(lore(), alice.token, conv.id, { content: 'follow-up' })).id).toBe(noId.id);
      expect((await say(lore(), alice.token, conv.id, { content: 'follow-up', parent_message_id: reply.id })).id).toBe(noId.id);
      expect((await say(lore(), alice.token, conv.id, { content: 'follow-up', checksum: sha256('follow-up') })).id).toBe(noId.id);
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(4);
      // A different role, sender or parent is a different message.
      const asAssistant = await say(lore(), alice.token, conv.id, { content: 'follow-up', role: 'assistant' });
      expect(asAssistant.id).not.toBe(noId.id);
      const otherParent = await say(lore(), alice.token, conv.id, { content: 'follow-up', parent_message_id: root.id });
      expect([noId.id, asAssistant.id]).not.toContain(otherParent.id);
      const otherSender = await say(lore(), alice.token, conv.id, { content: 'follow-up', parent_message_id: root.id, sender_id: 'someone-else' });
      expect(otherSender.id).not.toBe(otherParent.id);
      // The same words again after a reply are a new turn.
      await say(lore(), alice.token, conv.id, { content: 'ok', role: 'assistant', parent_message_id: otherSender.id });
      const again = await say(lore(), alice.token, conv.id, { content: 'follow-up', sender_id: 'someone-else' });
      expect(again.id).not.toBe(otherSender.id);
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(9);
    });

    it('moves the active path to a repeated message that is off it, and keeps one copy of a retried edit', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const path = async () => ((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/messages`, { token: alice.token })).body.data as Array<{ content: string }>).map((m) => m.content);
      const u1 = await say(lore(), alice.token, conv.id, { content: 'u1' });
      const a1 = await say(lore(), alice.token, conv.id, { content: 'a1', role: 'assistant' });
      const yes = await say(lore(), alice.token, conv.id, { content: 'yes' });
      await say(lore(), alice.token, conv.id, { content: 'a2', role: 'assistant' });
      await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { current_message_id: a1.id } });
      // "yes" again after a1: the message there already, and the path runs through it again.
      expect((await say(lore(), alice.token, conv.id, { content: 'yes' })).id).toBe(yes.id);
      await say(lore(), alice.token, conv.id, { content: 'reply b', role: 'assistant' });
      expect(await path()).toEqual(['u1', 'a1', 'yes', 'reply b']);

      const edit = (body: Record<string, unknown>) => call(lore(), 'PATCH', `/api/v1/messages/${u1.id}`, { token: alice.token, body });
      const first = await edit({ content: 'u1 edited' });
      expect((await edit({ content: 'u1 edited' })).body.id).toBe(first.body.id);
      const withId = await edit({ content: 'u1 edited again', client_message_id: 'e-1' });
      expect((await edit({ content: 'u1 edited again', client_message_id: 'e-1' })).body.id).toBe(withId.body.id);
      expect((await edit({ content: 'something else', client_message_id: 'e-1' })).status).toBe(409);
      const all = (await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/messages?include_branches=true`, { token: alice.token })).body.data as Array<{ edit_of: string | null }>;
      expect(all.filter((m) => m.edit_of === u1.id)).toHaveLength(2);
    });

    it('refuses a PATCH that changes nothing it can, and frees a deleted message\'s client id', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const m = await say(lore(), alice.token, conv.id, { content: 'hello', client_message_id: 'c-9' });
      expect((await call(lore(), 'PATCH', `/api/v1/messages/${m.id}`, { token: alice.token, body: {} })).status).toBe(422);
      const roleOnly = await call(lore(), 'PATCH', `/api/v1/messages/${m.id}`, { token: alice.token, body: { role: 'assistant' } });
      expect(roleOnly.status).toBe(422);
      expect(roleOnly.body.detail[0].loc).toEqual(['body', 'role']);
      expect((await call(lore(), 'DELETE', `/api/v1/messages/${m.id}`, { token: alice.token })).status).toBe(200);
      const again = await append(alice.token, conv.id, { content: 'hello again', client_message_id: 'c-9' });
      expect(again.status).toBe(201);
      expect(again.body.id).not.toBe(m.id);
    });

    it('chains concurrent appends into one path, and keeps one message for concurrent identical retries', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const replies = await Promise.all(Array.from({ length: 12 }, (_, i) => append(alice.token, conv.id, { content: `turn ${i}` })));
      expect(replies.map((r) => r.status)).toEqual(Array(12).fill(201));
      const active = (await path(alice.token, conv.id)).body;
      expect(active.total_count).toBe(12);
      expect(idsOf(active.data).sort()).toEqual(idsOf(replies.map((r) => r.body)).sort());
      active.data.forEach((m: { parent_message_id: string | null }, i: number) => expect(m.parent_message_id).toBe(i === 0 ? null : active.data[i - 1].id));
      const same = await Promise.all(Array.from({ length: 6 }, () => append(alice.token, conv.id, { content: 'double click' })));
      expect(new Set(same.map((r) => r.body.id)).size).toBe(1);
      const sameId = await Promise.all(Array.from({ length: 6 }, () => append(alice.token, conv.id, { content: 'retried', client_message_id: 'retry-1', role: 'assistant' })));
      expect(new Set(sameId.map((r) => r.body.id)).size).toBe(1);
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(14);
    });

    it('accepts any words in search without a server error', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const m = await say(lore(), alice.token, conv.id, { content: 'plain searchable text' });
      for (const q of ['"', '"plain', 'plain*', 'plain AND', 'OR', 'NOT plain', '(', 'content:plain', 'NEAR(plain text)', '-plain', '^plain', "'", '%', '\\', '🙂', 'the']) {
        const reply = await call(lore(), 'GET', `/api/v1/messages?search=${encodeURIComponent(q)}`, { token: alice.token });
        expect({ q, status: reply.status }).toEqual({ q, status: 200 });
      }
      expect(idsOf((await call(lore(), 'GET', `/api/v1/messages?search=${encodeURIComponent('"plain')}`, { token: alice.token })).body.data)).toEqual([m.id]);
      expect(idsOf((await call(lore(), 'GET', `/api/v1/messages?search=${encodeURIComponent('plain AND')}`, { token: alice.token })).body.data)).toEqual([]);
    });

    it('refuses to change an archived conversation with 409, and accepts again once active', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const m = await say(lore(), alice.token, conv.id, { content: 'before' });
      await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { status: 'archived' } });
      expect((await append(alice.token, conv.id, { content: 'while archived' })).status).toBe(409);
      expect((await call(lore(), 'PATCH', `/api/v1/messages/${m.id}`, { token: alice.token, body: { content: 'edited while archived' } })).status).toBe(409);
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(1);
      expect((await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { status: 'active' } })).status).toBe(200);
      expect((await append(alice.token, conv.id, { content: 'after' })).status).toBe(201);
    });

    it('rejects a parent that is not in the conversation with 422 at body.parent_message_id', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const other = await conversation(lore(), alice.token);
      const elsewhere = await say(lore(), alice.token, other.id, { content: 'elsewhere' });
      for (const parent of [unique('msg'), elsewhere.id]) {
        const reply = await append(alice.token, conv.id, { content: 'orphan', parent_message_id: parent });
        expect(reply.status).toBe(422);
        expect(locs(reply)).toContainEqual(['body', 'parent_message_id']);
      }
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(0);
    });

    it('branches: regenerate, edit, list the path, the branches or a leaf, switch branch, delete a subtree', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const u1 = await say(lore(), alice.token, conv.id, { content: 'u1' });
      const a1 = await say(lore(), alice.token, conv.id, { content: 'a1', role: 'assistant' });
      const u2 = await say(lore(), alice.token, conv.id, { content: 'u2' });
      const a2 = await say(lore(), alice.token, conv.id, { content: 'a2', role: 'assistant' });
      // Regenerate: another answer to the same question.
      const a2b = await say(lore(), alice.token, conv.id, { content: 'a2 again', role: 'assistant', parent_message_id: u2.id });
      expect(a2b.parent_message_id).toBe(u2.id);
      expect((await getConversation(alice.token, conv.id)).current_message_id).toBe(a2b.id);
      expect(idsOf((await path(alice.token, conv.id)).body.data)).toEqual([u1.id, a1.id, u2.id, a2b.id]);
      const all = await path(alice.token, conv.id, '?include_branches=true');
      expect(idsOf(all.body.data)).toEqual([u1.id, a1.id, u2.id, a2.id, a2b.id]);
      expect(all.body.total_count).toBe(5);
      expect(idsOf((await path(alice.token, conv.id, `?leaf_message_id=${a2.id}`)).body.data)).toEqual([u1.id, a1.id, u2.id, a2.id]);
      expect((await path(alice.token, conv.id, `?leaf_message_id=${unique('msg')}`)).status).toBe(404);
      const paged = await path(alice.token, conv.id, '?skip=1&limit=2');
      expect(idsOf(paged.body.data)).toEqual([a1.id, u2.id]);
      expect(paged.body).toMatchObject({ total_count: 4, has_more: true, current_message_id: a2b.id });

      // Edit: a sibling of the original, the active path moves to it, the original stays readable.
      const edit = await call(lore(), 'PATCH', `/api/v1/messages/${u2.id}`, { token: alice.token, body: { content: 'u2 edited' } });
      expect(edit.status).toBe(200);
      const u2e = edit.body;
      expect(u2e).toMatchObject({ content: 'u2 edited', edit_of: u2.id, parent_message_id: a1.id, role: 'user', checksum: sha256('u2 edited') });
      expect(u2e.id).not.toBe(u2.id);
      expect((await call(lore(), 'GET', `/api/v1/messages/${u2.id}`, { token: alice.token })).body).toMatchObject({ content: 'u2', edit_of: null });
      expect((await getConversation(alice.token, conv.id)).current_message_id).toBe(u2e.id);
      expect(idsOf((await path(alice.token, conv.id)).body.data)).toEqual([u1.id, a1.id, u2e.id]);
      const a3 = await say(lore(), alice.token, conv.id, { content: 'a3', role: 'assistant' });
      expect(a3.parent_message_id).toBe(u2e.id);

      // In place: tags, meta_data, tool_calls, attachments (or the same content) change the message, not the tree.
      const inPlace = await call(lore(), 'PATCH', `/api/v1/messages/${a1.id}`, { token: alice.token, body: { content: 'a1', tags: ['good'], meta_data: { rating: 5 }, tool_calls: [{ name: 't' }], attachments: [{ url: 'u' }] } });
      expect(inPlace.status).toBe(200);
      expect(inPlace.body).toMatchObject({ id: a1.id, content: 'a1', tags: ['good'], meta_data: { rating: 5 }, tool_calls: [{ name: 't' }], attachments: [{ url: 'u' }], parent_message_id: u1.id, created_at: a1.created_at });
      expect(inPlace.body.updated_at >= a1.updated_at).toBe(true);
      expect(await getConversation(alice.token, conv.id)).toMatchObject({ message_count: 7, current_message_id: a3.id });

      // Switch branch: the active path ends where asked, and the next append continues there.
      const switched = await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { current_message_id: a2.id } });
      expect(switched.status).toBe(200);
      expect(switched.body.current_message_id).toBe(a2.id);
      expect(idsOf((await path(alice.token, conv.id)).body.data)).toEqual([u1.id, a1.id, u2.id, a2.id]);
      const u3 = await say(lore(), alice.token, conv.id, { content: 'u3' });
      expect(u3.parent_message_id).toBe(a2.id);

      // Deleting a subtree that holds the current message moves it to the deleted message's parent.
      const deleted = await call(lore(), 'DELETE', `/api/v1/messages/${u2.id}`, { token: alice.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: u2.id, message: expect.any(String), deleted_messages: 4 }); // u2, a2, a2b, u3
      for (const m of [u2, a2, a2b, u3]) expect((await call(lore(), 'GET', `/api/v1/messages/${m.id}`, { token: alice.token })).status).toBe(404);
      expect(await getConversation(alice.token, conv.id)).toMatchObject({ message_count: 4, current_message_id: a1.id });
      expect(idsOf((await path(alice.token, conv.id)).body.data)).toEqual([u1.id, a1.id]);
      expect(idsOf((await path(alice.token, conv.id, '?include_branches=true')).body.data)).toEqual([u1.id, a1.id, u2e.id, a3.id]);
      expect((await path(alice.token, conv.id, `?leaf_message_id=${a2.id}`)).status).toBe(404);
      expect((await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { current_message_id: u3.id } })).status).toBe(422);
      // Deleting off the active path leaves the current message where it is.
      await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { current_message_id: a3.id } });
      const side = await say(lore(), alice.token, conv.id, { content: 'side', parent_message_id: u1.id });
      await call(lore(), 'PATCH', `/api/v1/conversations/${conv.id}`, { token: alice.token, body: { current_message_id: a3.id } });
      expect((await call(lore(), 'DELETE', `/api/v1/messages/${side.id}`, { token: alice.token })).body.deleted_messages).toBe(1);
      expect((await getConversation(alice.token, conv.id)).current_message_id).toBe(a3.id);
      expect((await call(lore(), 'DELETE', `/api/v1/messages/${side.id}`, { token: alice.token })).status).toBe(404);
      // Deleting the root empties the path.
      expect((await call(lore(), 'DELETE', `/api/v1/messages/${u1.id}`, { token: alice.token })).body.deleted_messages).toBe(4);
      expect(await getConversation(alice.token, conv.id)).toMatchObject({ message_count: 0, current_message_id: null });
      expect((await path(alice.token, conv.id)).body).toMatchObject({ data: [], total_count: 0, current_message_id: null });
    });

    it('lists messages with every filter, word search, tags, sorting and paging in the offset envelope', async () => {
      const alice = await person(lore());
      const c1 = await conversation(lore(), alice.token);
      const c2 = await conversation(lore(), alice.token);
      const made: any[] = [];
      const add = async (conv: string, body: Record<string, unknown>): Promise<any> => {
        const m = await say(lore(), alice.token, conv, body);
        made.push(m);
        await sleep(3);
        return m;
      };
      const m1 = await add(c1.id, { content: 'The purple elephant dances', tags: ['zoo', 'fun'], sent_at: '2024-01-03T00:00:00Z' });
      const m2 = await add(c1.id, { content: 'Elephants are running quickly', role: 'assistant', sender_id: 'bot', tags: ['zoo'], sent_at: '2024-01-01T00:00:00Z' });
      const m3 = await add(c1.id, { content: 'A purple CAFÉ sign', message_type: 'image', tags: ['fun'], sent_at: '2024-01-02T00:00:00Z' });
      const m4 = await add(c2.id, { content: 'Nothing related here', role: 'system', sender_id: 'sys', sent_at: '2024-01-05T00:00:00Z' });
      const m5 = await add(c2.id, { content: 'elephant run', tags: ['zoo', 'fun', 'extra'], sent_at: '2024-01-04T00:00:00Z' });
      const list = async (query: string): Promise<Reply> => {
        const reply = await call(lore(), 'GET', `/api/v1/messages${query}`, { token: alice.token });
        expect({ query, status: reply.status }).toEqual({ query, status: 200 });
        return reply;
      };
      const ids = async (query: string): Promise<string[]> => idsOf((await list(query)).body.data).sort();
      const sorted = (...ms: any[]): string[] => idsOf(ms).sort();

      const all = await list('');
      expect(Object.keys(all.body).sort()).toEqual(['data', 'has_more', 'limit', 'next_cursor', 'next_page', 'page', 'total_count']);
      expect(all.body).toMatchObject({ total_count: 5, page: 1, limit: 100, next_page: null, has_more: false });
      expect(idsOf(all.body.data)).toEqual(idsOf([...made].reverse())); // created_at desc by default

      expect(await ids(`?conversation_id=${c1.id}`)).toEqual(sorted(m1, m2, m3));
      expect(await ids('?sender_id=bot')).toEqual(sorted(m2));
      expect(await ids(`?sender_id=${alice.id}`)).toEqual(sorted(m1, m3, m5));
      expect(await ids('?role=system')).toEqual(sorted(m4));
      expect(await ids('?role=user')).toEqual(sorted(m1, m3, m5));
      expect(await ids('?message_type=image')).toEqual(sorted(m3));
      expect(await ids('?search=purple')).toEqual(sorted(m1, m3));
      expect(await ids('?search=elephant%20purple')).toEqual(sorted(m1));
      expect(await ids('?search=ELEPHANT')).toEqual(sorted(m1, m2, m5));
      expect(await ids('?search=run')).toEqual(sorted(m2, m5));
      expect(await ids('?search=cafe')).toEqual(sorted(m3));
      expect(await ids('?search=giraffe')).toEqual([]);
      expect(await ids('?tags=zoo')).toEqual(sorted(m1, m2, m5));
      expect(await ids('?tags=zoo,fun')).toEqual(sorted(m1, m5));
      expect(await ids('?tags=zoo,fun,extra')).toEqual(sorted(m5));
      expect(await ids(`?tags=fun&conversation_id=${c1.id}&search=purple&role=user`)).toEqual(sorted(m1, m3));
      expect((await list('?search=elephant&limit=1')).body).toMatchObject({ total_count: 3, has_more: true, next_page: 2 });
      expect((await call(lore(), 'GET', `/api/v1/messages?conversation_id=${unique('conv')}`, { token: alice.token })).status).toBe(404);

      expect(idsOf((await list('?sort_by=sent_at&sort_order=asc')).body.data)).toEqual(idsOf([m2, m3, m1, m5, m4]));
      expect(idsOf((await list('?sort_by=sent_at')).body.data)).toEqual(idsOf([m4, m5, m1, m3, m2]));
      expect(idsOf((await list('?sort_by=created_at&sort_order=asc')).body.data)).toEqual(idsOf(made));
      for (const field of ['created_at', 'updated_at', 'sent_at', 'id']) {
        for (const order of ['asc', 'desc'] as const) {
          const data = (await list(`?sort_by=${field}&sort_order=${order}`)).body.data;
          expect(data).toHaveLength(5);
          const values = data.map((m: Record<string, string>) => (field === 'sent_at' ? new Date(m[field] as string).toISOString() : m[field]));
          expect({ field, order, ok: ordered(values, order) }).toEqual({ field, order, ok: true });
        }
      }
      // Updating a message moves it in the updated_at order.
      await call(lore(), 'PATCH', `/api/v1/messages/${m2.id}`, { token: alice.token, body: { tags: ['zoo', 'touched'] } });
      expect(idsOf((await list('?sort_by=updated_at&sort_order=desc')).body.data)[0]).toBe(m2.id);

      // Offset pages, then cursor pages: every message once.
      const pages: string[] = [];
      for (let skip = 0; skip < 5; skip += 2) {
        const page = await list(`?sort_by=created_at&sort_order=asc&skip=${skip}&limit=2`);
        expect(page.body).toMatchObject({ total_count: 5, page: skip / 2 + 1, limit: 2, has_more: skip + 2 < 5, next_page: skip + 2 < 5 ? skip / 2 + 2 : null });
        pages.push(...idsOf(page.body.data));
      }
      expect(pages).toEqual(idsOf(made));
      const firstPage = await list('?sort_by=created_at&sort_order=asc&limit=2');
      const walked: string[] = idsOf(firstPage.body.data);
      let cursor: string | null = firstPage.body.next_cursor;
      expect(cursor).not.toBeNull();
      while (cursor !== null && walked.length < 20) {
        const page: Reply = await list(`?sort_by=created_at&sort_order=asc&limit=2&cursor=${encodeURIComponent(cursor)}`);
        walked.push(...idsOf(page.body.data));
        cursor = page.body.next_cursor;
      }
      expect(walked).toEqual(idsOf(made));
      expect(idsOf((await list('?skip=5')).body.data)).toEqual([]);

      for (const bad of ['?limit=0', '?limit=1001', '?skip=-1', '?sort_by=content', '?sort_order=sideways', '?role=bad%20role']) {
        const reply = await call(lore(), 'GET', `/api/v1/messages${bad}`, { token: alice.token });
        expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
        expect(reply.body.detail[0].loc[0]).toBe('query');
      }
      expect((await list('?limit=1000')).body.limit).toBe(1000);
    });

    it('enforces the message size limits with 422 naming the field, and stores nothing', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token);
      const cases: Array<[Record<string, unknown>, Array<string | number>]> = [
        [{}, ['body', 'content']],
        [{ content: '' }, ['body', 'content']],
        [{ content: 'x'.repeat(100_001) }, ['body', 'content']],
        [{ content: 42 }, ['body', 'content']],
        [{ content: 'm', tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['body', 'tags']],
        [{ content: 'm', tags: ['x'.repeat(101)] }, ['body', 'tags', 0]],
        [{ content: 'm', meta_data: { blob: 'x'.repeat(17 * 1024) } }, ['body', 'meta_data']],
        [{ content: 'm', tool_calls: [{ blob: 'x'.repeat(65 * 1024) }] }, ['body', 'tool_calls']],
        [{ content: 'm', attachments: [{ blob: 'x'.repeat(65 * 1024) }] }, ['body', 'attachments']],
        [{ content: 'm', role: 'bad role' }, ['body', 'role']],
        [{ content: 'm', message_type: '' }, ['body', 'message_type']],
        [{ content: 'm', sent_at: 'yesterday' }, ['body', 'sent_at']],
        [{ content: 'm', client_message_id: 'c'.repeat(101) }, ['body', 'client_message_id']],
        [{ content: 'm', tool_calls: 'not a list' }, ['body', 'tool_calls']],
      ];
      for (const [body, loc] of cases) {
        const reply = await append(alice.token, conv.id, body);
        expect({ loc, status: reply.status }).toEqual({ loc, status: 422 });
        expect(locs(reply)).toContainEqual(loc);
      }
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(0);
      const big = await append(alice.token, conv.id, { content: 'y'.repeat(100_000), tags: Array.from({ length: 20 }, (_, i) => `t${i}`), meta_data: { blob: 'x'.repeat(15 * 1024) } });
      expect(big.status).toBe(201);
      expect(big.body.content).toHaveLength(100_000);
      expect(big.body.checksum).toBe(sha256('y'.repeat(100_000)));
      const tooBigEdit = await call(lore(), 'PATCH', `/api/v1/messages/${big.body.id}`, { token: alice.token, body: { content: 'z'.repeat(100_001) } });
      expect(tooBigEdit.status).toBe(422);
      expect(locs(tooBigEdit)).toContainEqual(['body', 'content']);
      expect((await getConversation(alice.token, conv.id)).message_count).toBe(1);
    });
  });
}
