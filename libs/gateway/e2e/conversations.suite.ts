import { createHash } from 'node:crypto';
import { call, mintJwt, unique, type LoreUnderTest, type Reply } from './e2e-client';
import { createCollection, locs } from './knowledge-fixtures';

/** What the conversation suites share: callers, a conversation, a message, a checksum. */
export interface Person {
  readonly token: string;
  readonly id: string;
  readonly workspace: string;
}

export async function person(lore: LoreUnderTest, workspace = unique('ws'), id = unique('user'), roles: string[] = []): Promise<Person> {
  return { token: await mintJwt(lore.jwtSecret, { sub: id, workspace_id: workspace, ...(roles.length > 0 ? { roles } : {}) }), id, workspace };
}

export const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export async function conversation(lore: LoreUnderTest, token: string, body: Record<string, unknown> = {}): Promise<any> {
  const reply = await call(lore, 'POST', '/api/v1/conversations', { token, body });
  if (reply.status !== 201) throw new Error(`create conversation: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

/** Appends a message and returns it (a non-201 fails the test with the reply). */
export async function say(lore: LoreUnderTest, token: string, conversationId: string, body: Record<string, unknown>): Promise<any> {
  const reply = await call(lore, 'POST', `/api/v1/conversations/${conversationId}/messages`, { token, body });
  if (reply.status !== 201) throw new Error(`append: ${reply.status} ${JSON.stringify(reply.body)}`);
  return reply.body;
}

export const idsOf = (items: Array<{ id: string }>): string[] => items.map((x) => x.id);

/** Whether `values` are in `order` (ties allowed). */
export function ordered(values: string[], order: 'asc' | 'desc'): boolean {
  return values.every((v, i) => i === 0 || (order === 'asc' ? (values[i - 1] as string) <= v : (values[i - 1] as string) >= v));
}

/** Conversations over HTTP (SPEC §2.8, §2.9, §4.7): the record, the list, ownership, export and permanent deletion. */
export function describeConversations(lore: () => LoreUnderTest): void {
  describe('conversations', () => {
    const list = (token: string, query = '', path = '/api/v1/conversations'): Promise<Reply> => call(lore(), 'GET', `${path}${query}`, { token });

    it('creates, gets, updates and deletes a conversation', async () => {
      const alice = await person(lore());
      const defaults = await call(lore(), 'POST', '/api/v1/conversations', { token: alice.token, body: {} });
      expect(defaults.status).toBe(201);
      expect(defaults.body).toMatchObject({ workspace_id: alice.workspace, user_id: alice.id, title: null, status: 'active', collection_ids: [], tags: [], metadata: {}, message_count: 0, last_message_at: null, current_message_id: null, created_by: `user:${alice.id}` });
      expect(typeof defaults.body.id).toBe('string');
      expect(Date.parse(defaults.body.created_at)).not.toBeNaN();

      const created = await conversation(lore(), alice.token, { title: 'Trip planning', tags: ['travel'], metadata: { channel: 'web', nested: { n: 1 } } });
      expect(created).toMatchObject({ title: 'Trip planning', tags: ['travel'], metadata: { channel: 'web', nested: { n: 1 } } });
      expect(created.id).not.toBe(defaults.body.id);
      const got = await call(lore(), 'GET', `/api/v1/conversations/${created.id}`, { token: alice.token });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(created);

      await sleep(5);
      const patched = await call(lore(), 'PATCH', `/api/v1/conversations/${created.id}`, { token: alice.token, body: { title: 'Trip to Oslo', status: 'archived', tags: ['travel', 'norway'], metadata: { channel: 'app' } } });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ id: created.id, title: 'Trip to Oslo', status: 'archived', tags: ['travel', 'norway'], metadata: { channel: 'app' }, created_at: created.created_at });
      expect(patched.body.updated_at > created.updated_at).toBe(true);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${created.id}`, { token: alice.token })).body).toEqual(patched.body);
      // Absent fields stay; null clears the title.
      const cleared = await call(lore(), 'PATCH', `/api/v1/conversations/${created.id}`, { token: alice.token, body: { title: null } });
      expect(cleared.body).toMatchObject({ title: null, status: 'archived', tags: ['travel', 'norway'], metadata: { channel: 'app' } });

      const deleted = await call(lore(), 'DELETE', `/api/v1/conversations/${created.id}`, { token: alice.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: created.id, message: expect.any(String), deleted_messages: 0 });
      expect((await call(lore(), 'GET', `/api/v1/conversations/${created.id}`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'PATCH', `/api/v1/conversations/${created.id}`, { token: alice.token, body: { title: 'back' } })).status).toBe(404);
      expect(idsOf((await list(alice.token)).body.conversations)).toEqual([defaults.body.id]);
      for (const method of ['GET', 'DELETE'] as const) expect((await call(lore(), method, `/api/v1/conversations/${unique('conv')}`, { token: alice.token })).status).toBe(404);
    });

    it('validates conversation fields with 422 naming the field, and stores nothing', async () => {
      const alice = await person(lore());
      const cases: Array<[unknown, Array<string | number>]> = [
        [{ title: 't'.repeat(501) }, ['body', 'title']],
        [{ status: 'closed' }, ['body', 'status']],
        [{ tags: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['body', 'tags']],
        [{ tags: [''] }, ['body', 'tags', 0]],
        [{ tags: ['x'.repeat(101)] }, ['body', 'tags', 0]],
        [{ metadata: { blob: 'x'.repeat(17 * 1024) } }, ['body', 'metadata']],
        [{ metadata: 'text' }, ['body', 'metadata']],
        [{ collection_ids: [unique('col')] }, ['body', 'collection_ids', 0]],
        [{ user_id: '' }, ['body', 'user_id']],
      ];
      for (const [body, loc] of cases) {
        const reply = await call(lore(), 'POST', '/api/v1/conversations', { token: alice.token, body });
        expect({ body, status: reply.status }).toEqual({ body, status: 422 });
        expect(locs(reply)).toContainEqual(loc);
      }
      expect((await list(alice.token)).body.conversations).toEqual([]);
      const ok = await call(lore(), 'POST', '/api/v1/conversations', { token: alice.token, body: { title: 't'.repeat(500), tags: Array.from({ length: 20 }, (_, i) => `t${i}`), metadata: { blob: 'x'.repeat(15 * 1024) } } });
      expect(ok.status).toBe(201);
      const badPatch = await call(lore(), 'PATCH', `/api/v1/conversations/${ok.body.id}`, { token: alice.token, body: { metadata: { blob: 'x'.repeat(17 * 1024) } } });
      expect(badPatch.status).toBe(422);
      expect(locs(badPatch)).toContainEqual(['body', 'metadata']);
      const badCurrent = await call(lore(), 'PATCH', `/api/v1/conversations/${ok.body.id}`, { token: alice.token, body: { current_message_id: unique('msg') } });
      expect(badCurrent.status).toBe(422);
      expect(locs(badCurrent)).toContainEqual(['body', 'current_message_id']);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${ok.body.id}`, { token: alice.token })).body).toEqual(ok.body);
    });

    it('lists in the cursor envelope with status, search, user and collection filters, on both paths', async () => {
      const workspace = unique('ws');
      const alice = await person(lore(), workspace);
      const bob = await person(lore(), workspace);
      const col = await createCollection(lore(), alice.token);
      const alpha = await conversation(lore(), alice.token, { title: 'Alpha Project', collection_ids: [col.id] });
      const beta = await conversation(lore(), alice.token, { title: 'beta notes', status: 'archived' });
      const gamma = await conversation(lore(), alice.token, { title: 'Gamma project review' });
      await conversation(lore(), bob.token, { title: 'Alpha Bob', collection_ids: [col.id] });
      const ids = async (query: string, path?: string): Promise<string[]> => {
        const reply = await list(alice.token, query, path);
        expect({ query, status: reply.status }).toEqual({ query, status: 200 });
        return idsOf(reply.body.conversations).sort();
      };

      const all = await list(alice.token);
      expect(all.status).toBe(200);
      expect(Object.keys(all.body).sort()).toEqual(['conversations', 'has_more', 'next_cursor']);
      expect(all.body).toMatchObject({ next_cursor: null, has_more: false });
      expect(idsOf(all.body.conversations)).toEqual([gamma.id, beta.id, alpha.id]); // updated_at desc
      expect((await list(alice.token, '', '/conversations')).body).toEqual(all.body);

      expect(await ids('?status=archived')).toEqual([beta.id]);
      expect(await ids('?status=active')).toEqual([alpha.id, gamma.id].sort());
      expect(await ids('?search=PROJECT')).toEqual([alpha.id, gamma.id].sort());
      expect(await ids('?search=alpha')).toEqual([alpha.id]);
      expect(await ids('?search=ject%20rev')).toEqual([gamma.id]);
      expect(await ids('?search=zzz')).toEqual([]);
      expect(await ids(`?collection_id=${col.id}`)).toEqual([alpha.id]);
      expect(await ids(`?collection_id=${col.id}&status=archived`)).toEqual([]);
      expect(await ids('?status=active&search=gamma', '/conversations')).toEqual([gamma.id]);
      expect(await ids(`?user_id=${alice.id}`)).toEqual([alpha.id, beta.id, gamma.id].sort());
      expect((await list(alice.token, `?user_id=${bob.id}`)).status).toBe(403);
      expect((await list(alice.token, '?status=closed')).status).toBe(422);
      // A conversation moves to the head of the default order when it changes.
      await call(lore(), 'PATCH', `/api/v1/conversations/${alpha.id}`, { token: alice.token, body: { tags: ['bumped'] } });
      expect(idsOf((await list(alice.token)).body.conversations)[0]).toBe(alpha.id);
    });

    it('sorts by every field in both orders', async () => {
      const alice = await person(lore());
      const made: any[] = [];
      for (const title of ['delta', 'alpha', 'charlie', 'bravo']) {
        made.push(await conversation(lore(), alice.token, { title }));
        await sleep(5);
      }
      await call(lore(), 'PATCH', `/api/v1/conversations/${made[1].id}`, { token: alice.token, body: { tags: ['touched'] } });
      const creation = idsOf(made);
      const expected: Record<string, string[]> = {
        'title asc': [made[1].id, made[3].id, made[2].id, made[0].id],
        'created_at asc': creation,
        'updated_at asc': [made[0].id, made[2].id, made[3].id, made[1].id],
        'id asc': [...creation].sort(),
      };
      for (const field of ['id', 'updated_at', 'created_at', 'title']) {
        for (const order of ['asc', 'desc'] as const) {
          const reply = await list(alice.token, `?sort_by=${field}&sort_order=${order}`);
          expect(reply.status).toBe(200);
          const got = idsOf(reply.body.conversations);
          const want = [...(expected[`${field} asc`] as string[])];
          expect({ field, order, got }).toEqual({ field, order, got: order === 'asc' ? want : want.reverse() });
          expect(ordered(reply.body.conversations.map((c: Record<string, string>) => c[field]), order)).toBe(true);
        }
      }
      expect(idsOf((await list(alice.token)).body.conversations)).toEqual([...(expected['updated_at asc'] as string[])].reverse());
      expect(idsOf((await list(alice.token, '?sort_by=title')).body.conversations)).toEqual([...(expected['title asc'] as string[])].reverse());
    });

    it('searches titles literally (no wildcards) and pages by title across untitled conversations', async () => {
      const alice = await person(lore());
      const pct = await conversation(lore(), alice.token, { title: '100% done' });
      const under = await conversation(lore(), alice.token, { title: 'snake_case' });
      const plain = await conversation(lore(), alice.token, { title: 'plain words' });
      const untitled = [await conversation(lore(), alice.token), await conversation(lore(), alice.token), await conversation(lore(), alice.token)];
      const ids = async (query: string): Promise<string[]> => idsOf((await list(alice.token, query)).body.conversations).sort();
      expect(await ids('?search=%25')).toEqual([pct.id]);
      expect(await ids('?search=_')).toEqual([under.id]);
      expect(await ids('?search=e_c')).toEqual([under.id]);
      expect(await ids('?search=%5C')).toEqual([]);
      const all = [pct, under, plain, ...untitled].map((c) => c.id).sort();
      for (const order of ['asc', 'desc']) {
        const seen: string[] = [];
        let cursor: string | null = null;
        for (let i = 0; i < 10 && (i === 0 || cursor !== null); i++) {
          const page: Reply = await list(alice.token, `?sort_by=title&sort_order=${order}&limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          expect(page.status).toBe(200);
          seen.push(...idsOf(page.body.conversations));
          cursor = page.body.next_cursor;
        }
        expect({ order, seen: [...seen].sort() }).toEqual({ order, seen: all });
      }
    });

    it('keeps the workspaces of one user apart (X-Workspace-Id)', async () => {
      const [w1, w2] = [unique('ws'), unique('ws')];
      const id = unique('user');
      const token = await mintJwt(lore().jwtSecret, { sub: id, workspace_id: w1, workspaces: [w2] });
      const inW2 = await call(lore(), 'POST', '/api/v1/conversations', { token, body: { title: 'in w2' }, headers: { 'x-workspace-id': w2 } });
      expect(inW2.status).toBe(201);
      expect(inW2.body.workspace_id).toBe(w2);
      const inW1 = await conversation(lore(), token, { title: 'in w1' });
      expect(inW1.workspace_id).toBe(w1);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${inW2.body.id}`, { token })).status).toBe(404);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${inW2.body.id}`, { token, headers: { 'x-workspace-id': w2 } })).status).toBe(200);
      expect(idsOf((await list(token)).body.conversations)).toEqual([inW1.id]);
      expect(idsOf((await call(lore(), 'GET', '/api/v1/conversations', { token, headers: { 'x-workspace-id': w2 } })).body.conversations)).toEqual([inW2.body.id]);
      expect((await call(lore(), 'GET', '/api/v1/conversations', { token, headers: { 'x-workspace-id': unique('ws') } })).status).toBe(403);
    });

    it('bounds limit (1-100), sort_by and sort_order with 422', async () => {
      const alice = await person(lore());
      for (const bad of ['?limit=0', '?limit=101', '?limit=-1', '?limit=abc', '?sort_by=status', '?sort_order=up']) {
        const reply = await list(alice.token, bad);
        expect({ bad, status: reply.status }).toEqual({ bad, status: 422 });
        expect(reply.body.detail[0].loc[0]).toBe('query');
      }
      expect((await list(alice.token, '?limit=0')).body.detail[0].loc).toEqual(['query', 'limit']);
      // Decimal digits only, as FastAPI reads an int: not what JavaScript's Number() makes of a string.
      for (const spelled of ['?limit=1e2', '?limit=0x10', '?limit=0b1', '?limit=%205', '?limit=1.0']) {
        const reply = await list(alice.token, spelled);
        expect({ spelled, status: reply.status, detail: reply.body.detail }).toEqual({ spelled, status: 422, detail: [{ loc: ['query', 'limit'], msg: 'Input should be a valid integer, unable to parse string as an integer', type: 'int_parsing' }] });
      }
      for (const ok of ['?limit=1', '?limit=100', '?limit=%2B7']) expect((await list(alice.token, ok)).status).toBe(200);
      const garbage = await list(alice.token, '?cursor=not-a-cursor');
      expect(garbage.status).toBeGreaterThanOrEqual(400);
      expect(garbage.status).toBeLessThan(500);
    });

    it('walks every page by cursor with no duplicates or gaps while conversations are being added', async () => {
      const alice = await person(lore());
      const originals: string[] = [];
      for (let i = 0; i < 24; i += 2) originals.push((await conversation(lore(), alice.token, { title: `t${String(i).padStart(2, '0')}` })).id);
      for (const [sort, order] of [['title', 'asc'], ['created_at', 'desc'], ['created_at', 'asc'], ['id', 'desc'], ['updated_at', 'desc']] as const) {
        const seen: any[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const query: string = `?limit=5&sort_by=${sort}&sort_order=${order}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          // A page read while other conversations are written, in the middle of the range and at both ends.
          const [page] = await Promise.all([
            list(alice.token, query),
            conversation(lore(), alice.token, { title: `t${String(2 * pages + 1).padStart(2, '0')}-${sort}` }),
            conversation(lore(), alice.token, { title: `a-${sort}-${pages}` }),
          ]);
          expect(page.status).toBe(200);
          expect(page.body.conversations.length).toBeLessThanOrEqual(5);
          expect(page.body.has_more).toBe(page.body.next_cursor !== null);
          seen.push(...page.body.conversations);
          cursor = page.body.next_cursor;
          pages++;
        } while (cursor !== null && pages < 50);
        const seenIds = idsOf(seen);
        expect({ sort, order, duplicates: seenIds.length - new Set(seenIds).size }).toEqual({ sort, order, duplicates: 0 });
        expect({ sort, order, missing: originals.filter((id) => !seenIds.includes(id)) }).toEqual({ sort, order, missing: [] });
        expect(ordered(seen.map((c) => c[sort]), order)).toBe(true);
      }
    });

    it("keeps conversations to their owner: another user or workspace gets 404, a JWT naming another user 403", async () => {
      const workspace = unique('ws');
      const alice = await person(lore(), workspace);
      const bob = await person(lore(), workspace);
      const aliceElsewhere = await person(lore(), unique('ws'), alice.id);
      const conv = await conversation(lore(), alice.token, { title: 'secret plan' });
      const first = await say(lore(), alice.token, conv.id, { content: 'the secret plan' });
      for (const intruder of [bob, aliceElsewhere]) {
        for (const [method, path, body] of [
          ['GET', `/api/v1/conversations/${conv.id}`, undefined],
          ['PATCH', `/api/v1/conversations/${conv.id}`, { title: 'hijack' }],
          ['DELETE', `/api/v1/conversations/${conv.id}`, undefined],
          ['GET', `/api/v1/conversations/${conv.id}/export`, undefined],
          ['GET', `/api/v1/conversations/${conv.id}/messages`, undefined],
          ['POST', `/api/v1/conversations/${conv.id}/messages`, { content: 'injected' }],
          ['POST', `/api/v1/conversations/${conv.id}/context`, {}],
          ['GET', `/api/v1/messages?conversation_id=${conv.id}`, undefined],
          ['GET', `/api/v1/messages/${first.id}`, undefined],
          ['PATCH', `/api/v1/messages/${first.id}`, { content: 'rewritten' }],
          ['DELETE', `/api/v1/messages/${first.id}`, undefined],
        ] as const) {
          const reply = await call(lore(), method, path, { token: intruder.token, ...(body ? { body } : {}) });
          expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 });
          expect(JSON.stringify(reply.body)).not.toContain('secret plan');
        }
        expect((await list(intruder.token)).body.conversations).toEqual([]);
        expect((await call(lore(), 'GET', '/api/v1/messages?search=secret', { token: intruder.token })).body.total_count).toBe(0);
      }
      expect((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}?user_id=${alice.id}`, { token: bob.token })).status).toBe(403);
      expect((await call(lore(), 'POST', '/api/v1/conversations', { token: bob.token, body: { user_id: alice.id } })).status).toBe(403);
      const after = await call(lore(), 'GET', `/api/v1/conversations/${conv.id}`, { token: alice.token });
      expect(after.body).toMatchObject({ title: 'secret plan', message_count: 1, current_message_id: first.id });
      expect((await call(lore(), 'GET', `/api/v1/messages/${first.id}`, { token: alice.token })).body.content).toBe('the secret plan');
    });

    it("checks API-key permissions and lets an administrator's key act for the user it names", async () => {
      const admin = await person(lore(), unique('ws'), unique('admin'), ['admin']);
      const keyWith = async (permissions: string[]): Promise<{ id: string; key: string }> => {
        const reply = await call(lore(), 'POST', '/api/v1/api-keys', { token: admin.token, body: { label: unique('key'), permissions } });
        expect(reply.status).toBe(201);
        return reply.body;
      };
      const mine = await conversation(lore(), admin.token, { title: 'admin chat' });
      const memoriesOnly = (await keyWith(['memories:*'])).key;
      for (const [method, path, body] of [
        ['GET', '/api/v1/conversations?user_id=carol', undefined],
        ['GET', '/conversations?user_id=carol', undefined],
        ['POST', '/api/v1/conversations', { user_id: 'carol' }],
        ['GET', `/api/v1/conversations/${mine.id}?user_id=${admin.id}`, undefined],
        ['GET', `/api/v1/messages?user_id=${admin.id}`, undefined],
      ] as const) {
        expect({ path, status: (await call(lore(), method, path, { token: memoriesOnly, ...(body ? { body } : {}) })).status }).toEqual({ path, status: 403 });
      }
      const reader = (await keyWith(['conversations:read'])).key;
      expect((await list(reader, `?user_id=${admin.id}`)).status).toBe(200);
      expect((await call(lore(), 'POST', '/api/v1/conversations', { token: reader, body: { user_id: 'carol' } })).status).toBe(403);
      expect((await call(lore(), 'POST', `/api/v1/conversations/${mine.id}/messages?user_id=${admin.id}`, { token: reader, body: { content: 'x' } })).status).toBe(403);

      const agent = await keyWith(['conversations:*']);
      const forCarol = await call(lore(), 'POST', '/api/v1/conversations', { token: agent.key, body: { user_id: 'carol', title: 'carol chat' } });
      expect(forCarol.status).toBe(201);
      expect(forCarol.body).toMatchObject({ user_id: 'carol', created_by: `api_key:${agent.id}` });
      const id = forCarol.body.id;
      expect((await call(lore(), 'GET', `/api/v1/conversations/${id}?user_id=carol`, { token: agent.key })).body.title).toBe('carol chat');
      expect((await call(lore(), 'GET', `/api/v1/conversations/${id}?user_id=dave`, { token: agent.key })).status).toBe(404);
      expect(idsOf((await list(agent.key, '?user_id=carol')).body.conversations)).toEqual([id]);
      const message = await call(lore(), 'POST', `/api/v1/conversations/${id}/messages?user_id=carol`, { token: agent.key, body: { content: 'hi from the agent' } });
      expect(message.status).toBe(201);
      expect(message.body).toMatchObject({ owner_id: 'carol', sender_id: 'carol' });
      // The key acts for the admin's conversations when it names the admin.
      expect((await call(lore(), 'GET', `/api/v1/conversations/${mine.id}?user_id=${admin.id}`, { token: agent.key })).body.title).toBe('admin chat');
      expect((await call(lore(), 'GET', `/api/v1/conversations/${id}?user_id=${admin.id}`, { token: agent.key })).status).toBe(404);
    });

    it("lets an API key that names no user act for the user who created it", async () => {
      const admin = await person(lore());
      const mine = await conversation(lore(), admin.token, { title: 'admin chat' });
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token: admin.token, body: { label: 'agent', permissions: ['conversations:*'] } })).body.key;
      const got = await call(lore(), 'GET', `/api/v1/conversations/${mine.id}`, { token: key });
      expect({ status: got.status, body: got.body }).toMatchObject({ status: 200, body: { title: 'admin chat' } });
      const created = await call(lore(), 'POST', '/api/v1/conversations', { token: key, body: { title: 'by key' } });
      expect({ status: created.status, body: created.body }).toMatchObject({ status: 201, body: { user_id: admin.id } });
      expect(idsOf((await list(key)).body.conversations).sort()).toEqual([mine.id, created.body.id].sort());
    });

    it('exports a conversation as JSON (every branch) and Markdown (the active path)', async () => {
      const alice = await person(lore());
      const conv = await conversation(lore(), alice.token, { title: 'Export me', tags: ['demo'] });
      const question = await say(lore(), alice.token, conv.id, { content: 'What is the capital of Norway?' });
      const first = await say(lore(), alice.token, conv.id, { content: 'DISCARDEDANSWER Bergen', role: 'assistant', sender_id: 'bot' });
      const regenerated = await say(lore(), alice.token, conv.id, { content: 'Oslo is the capital.', role: 'assistant', sender_id: 'bot', parent_message_id: question.id, tool_calls: [{ name: 'lookup', args: { q: 'norway' } }] });

      const json = await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/export`, { token: alice.token });
      expect(json.status).toBe(200);
      expect(json.headers.get('content-type')).toMatch(/^application\/json/);
      expect(json.body.conversation).toMatchObject({ id: conv.id, title: 'Export me', message_count: 3, current_message_id: regenerated.id });
      expect(idsOf(json.body.messages)).toEqual([question.id, first.id, regenerated.id]);
      expect(json.body.messages[2]).toEqual(regenerated);
      expect(json.body.active_path).toEqual([question.id, regenerated.id]);
      expect(Date.parse(json.body.exported_at)).not.toBeNaN();
      expect((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/export?format=json`, { token: alice.token })).body.messages).toEqual(json.body.messages);

      const md = await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/export?format=markdown`, { token: alice.token });
      expect(md.status).toBe(200);
      expect(md.headers.get('content-type')).toMatch(/^text\/markdown/);
      expect(typeof md.body).toBe('string');
      expect(md.body).toMatch(/^# Export me/);
      expect(md.body).toContain('What is the capital of Norway?');
      expect(md.body).toContain('Oslo is the capital.');
      expect(md.body).toContain('lookup');
      expect(md.body).not.toContain('DISCARDEDANSWER');
      expect(md.body.indexOf('What is the capital')).toBeLessThan(md.body.indexOf('Oslo is the capital.'));
      const bad = await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/export?format=pdf`, { token: alice.token });
      expect(bad.status).toBe(422);
      expect(locs(bad)).toContainEqual(['query', 'format']);
    });

    it('deletes a conversation permanently with every message: gone from every read, the list and search', async () => {
      const alice = await person(lore());
      const word = `pelicanword${Math.random().toString(36).slice(2, 8)}`;
      const conv = await conversation(lore(), alice.token, { title: `about ${word}` });
      const keep = await conversation(lore(), alice.token, { title: 'kept' });
      const kept = await say(lore(), alice.token, keep.id, { content: `kept ${word}` });
      const u1 = await say(lore(), alice.token, conv.id, { content: `first ${word}` });
      const a1 = await say(lore(), alice.token, conv.id, { content: `second ${word}`, role: 'assistant' });
      const a1b = await say(lore(), alice.token, conv.id, { content: `branch ${word}`, role: 'assistant', parent_message_id: u1.id });
      const found = await call(lore(), 'GET', `/api/v1/messages?search=${word}`, { token: alice.token });
      expect(found.body.total_count).toBe(4);

      const deleted = await call(lore(), 'DELETE', `/api/v1/conversations/${conv.id}`, { token: alice.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ id: conv.id, message: expect.any(String), deleted_messages: 3 });
      // Answered after erasure: nothing of it is readable any more, at once.
      expect((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/messages`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}/export`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'POST', `/api/v1/conversations/${conv.id}/messages`, { token: alice.token, body: { content: 'again' } })).status).toBe(404);
      for (const m of [u1, a1, a1b]) expect((await call(lore(), 'GET', `/api/v1/messages/${m.id}`, { token: alice.token })).status).toBe(404);
      const after = await call(lore(), 'GET', `/api/v1/messages?search=${word}`, { token: alice.token });
      expect(idsOf(after.body.data)).toEqual([kept.id]);
      expect(after.body.total_count).toBe(1);
      expect(idsOf((await call(lore(), 'GET', '/api/v1/messages', { token: alice.token })).body.data)).toEqual([kept.id]);
      expect(idsOf((await list(alice.token)).body.conversations)).toEqual([keep.id]);
      expect((await list(alice.token, `?search=${word}`)).body.conversations).toEqual([]);
      const again = await call(lore(), 'DELETE', `/api/v1/conversations/${conv.id}`, { token: alice.token });
      expect([200, 404]).toContain(again.status);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${conv.id}`, { token: alice.token })).status).toBe(404);
    });
  });
}
