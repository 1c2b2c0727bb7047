import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';
import { rawCall } from './errors.suite';

async function user(lore: LoreUnderTest, workspace = unique('ws')): Promise<{ token: string; id: string; workspace: string }> {
  const id = unique('user');
  return { token: await mintJwt(lore.jwtSecret, { sub: id, workspace_id: workspace }), id, workspace };
}

export function describeMemories(lore: () => LoreUnderTest): void {
  describe('memories', () => {
    it('creates, gets, replaces and deletes a memory exactly as the spec shapes them', async () => {
      const alice = await user(lore());
      const created = await call(lore(), 'POST', '/api/v1/memories', {
        token: alice.token,
        body: { user_id: alice.id, memory: 'Prefers green tea', topics: ['drinks'], metadata: { source: 'chat' } },
      });
      expect(created.status).toBe(201);
      const { memory_id, message, memory } = created.body;
      expect(typeof message).toBe('string');
      expect(memory).toMatchObject({ memory_id, user_id: alice.id, memory: 'Prefers green tea', memory_type: 'user', topics: ['drinks'], metadata: { source: 'chat' } });
      expect(Date.parse(memory.created_at)).not.toBeNaN();

      const got = await call(lore(), 'GET', `/api/v1/memories/${memory_id}`, { token: alice.token });
      expect(got.status).toBe(200);
      expect(got.body).toEqual(memory);

      const replaced = await call(lore(), 'POST', `/api/v1/memories/${memory_id}/replace`, { token: alice.token, body: { memory: 'Prefers black coffee', topics: null } });
      expect(replaced.status).toBe(200);
      expect(replaced.body.memory_id).toBe(memory_id);
      expect(replaced.body.old_memory).toEqual(memory);
      expect(replaced.body.new_memory).toMatchObject({ memory: 'Prefers black coffee', topics: ['drinks'], metadata: { source: 'chat' }, created_at: memory.created_at });
      expect(replaced.body.new_memory.updated_at >= memory.updated_at).toBe(true);

      const cleared = await call(lore(), 'POST', `/api/v1/memories/${memory_id}/replace`, { token: alice.token, body: { memory: 'No drinks', topics: [], metadata: {} } });
      expect(cleared.body.new_memory).toMatchObject({ topics: [], metadata: {} });

      const history = await call(lore(), 'GET', `/api/v1/memories/${memory_id}/history`, { token: alice.token });
      expect(history.status).toBe(200);
      expect(history.body.versions.map((v: { memory: string }) => v.memory)).toEqual(['Prefers green tea', 'Prefers black coffee', 'No drinks']);

      const deleted = await call(lore(), 'DELETE', `/api/v1/memories/${memory_id}`, { token: alice.token });
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ memory_id, message: expect.any(String) });
      expect((await call(lore(), 'GET', `/api/v1/memories/${memory_id}`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'GET', `/api/v1/memories/${memory_id}/history`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'DELETE', `/api/v1/memories/${memory_id}`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'POST', `/api/v1/memories/${memory_id}/replace`, { token: alice.token, body: { memory: 'again' } })).status).toBe(404);
    });

    it('accepts the four memory types and rejects others with 422', async () => {
      const alice = await user(lore());
      for (const memory_type of ['user', 'agent', 'team', 'workflow']) {
        const reply = await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'm', memory_type } });
        expect(reply.status).toBe(201);
        expect(reply.body.memory.memory_type).toBe(memory_type);
      }
      const bad = await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'm', memory_type: 'robot' } });
      expect(bad.status).toBe(422);
      expect(bad.body.detail[0].loc).toEqual(['body', 'memory_type']);
    });

    it('keeps memories to their owner: others get 404, a JWT naming another user gets 403', async () => {
      const workspace = unique('ws');
      const alice = await user(lore(), workspace);
      const bob = await user(lore(), workspace);
      const id = (await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'secret plan' } })).body.memory_id;
      for (const [method, path, body] of [
        ['GET', `/api/v1/memories/${id}`, undefined],
        ['DELETE', `/api/v1/memories/${id}`, undefined],
        ['POST', `/api/v1/memories/${id}/replace`, { memory: 'hijack' }],
        ['GET', `/api/v1/memories/${id}/history`, undefined],
      ] as const) {
        const reply = await call(lore(), method, path, { token: bob.token, ...(body ? { body } : {}) });
        expect(reply.status).toBe(404);
        expect(JSON.stringify(reply.body)).not.toContain('secret plan');
      }
      expect((await call(lore(), 'GET', `/api/v1/memories/${id}?user_id=${alice.id}`, { token: bob.token })).status).toBe(403);
      expect((await call(lore(), 'POST', '/api/v1/memories', { token: bob.token, body: { user_id: alice.id, memory: 'x' } })).status).toBe(403);
      expect((await call(lore(), 'GET', `/api/v1/memories/${id}`, { token: alice.token })).body.memory).toBe('secret plan');
    });

    it("makes an API-key caller name the user it acts for (an administrator's key)", async () => {
      const admin = { token: await mintJwt(lore().jwtSecret, { sub: unique('admin'), workspace_id: unique('ws'), roles: ['admin'] }) };
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token: admin.token, body: { label: 'agent', permissions: ['memories:*'] } })).body.key;
      const missing = await call(lore(), 'POST', '/api/v1/memories', { token: key, body: { memory: 'x' } });
      expect(missing.status).toBe(422);
      expect(missing.body.detail[0]).toMatchObject({ loc: ['body', 'user_id'], type: 'missing' });
      const created = await call(lore(), 'POST', '/api/v1/memories', { token: key, body: { user_id: 'carol', memory: 'likes jazz' } });
      expect(created.status).toBe(201);
      const id = created.body.memory_id;
      expect((await call(lore(), 'GET', `/api/v1/memories/${id}`, { token: key })).status).toBe(422);
      expect((await call(lore(), 'GET', `/api/v1/memories/${id}?user_id=dave`, { token: key })).status).toBe(404);
      expect((await call(lore(), 'GET', `/api/v1/memories/${id}?user_id=carol`, { token: key })).body.memory).toBe('likes jazz');
    });

    it('enforces the documented limits with 422 naming the field, and stores nothing', async () => {
      const alice = await user(lore());
      const cases: Array<[unknown, Array<string | number>]> = [
        [{}, ['body', 'memory']],
        [{ memory: '' }, ['body', 'memory']],
        [{ memory: 'x'.repeat(10_001) }, ['body', 'memory']],
        [{ memory: 'm', topics: Array.from({ length: 21 }, (_, i) => `t${i}`) }, ['body', 'topics']],
        [{ memory: 'm', topics: ['x'.repeat(101)] }, ['body', 'topics', 0]],
        [{ memory: 'm', topics: [''] }, ['body', 'topics', 0]],
        [{ memory: 'm', metadata: { blob: 'x'.repeat(17 * 1024) } }, ['body', 'metadata']],
        [{ memory: 'm', metadata: 'not an object' }, ['body', 'metadata']],
        [{ memory: 42 }, ['body', 'memory']],
      ];
      for (const [body, loc] of cases) {
        const reply = await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body });
        expect(reply.status).toBe(422);
        expect(reply.body.detail.map((d: { loc: unknown }) => d.loc)).toContainEqual(loc);
      }
      const ok = await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'x'.repeat(10_000), topics: Array.from({ length: 20 }, (_, i) => `t${i}`) } });
      expect(ok.status).toBe(201);
      const list = await call(lore(), 'GET', '/api/v1/memories', { token: alice.token });
      expect(list.body.total_count).toBe(1);
    });

    it('answers malformed JSON with the 422 shape and oversize bodies with 413', async () => {
      const alice = await user(lore());
      const malformed = await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, rawBody: '{"memory": "x",' });
      expect(malformed.status).toBe(422);
      expect(malformed.body.detail[0]).toMatchObject({ loc: ['body', expect.any(Number)], type: 'json_invalid' });
      // The gateway refuses from Content-Length without reading the body and closes; rawCall holds
      // the body until it has the answer, so the upload cannot race the close (EPIPE).
      const huge = Buffer.from(JSON.stringify({ memory: 'x'.repeat(2 * 1024 * 1024) }));
      const headers = { authorization: `Bearer ${alice.token}`, 'content-type': 'application/json', 'content-length': String(huge.length) };
      const tooLarge = await rawCall(lore(), 'POST', '/api/v1/memories', { headers, body: huge, holdBodyMs: 2_000 });
      expect(tooLarge.status).toBe(413);
      expect(tooLarge.body).toEqual({ detail: expect.any(String) });
    });

    it('lists with filters, sort, skip/limit and stable cursors', async () => {
      const alice = await user(lore());
      const ids: string[] = [];
      for (let i = 0; i < 7; i++) {
        const reply = await call(lore(), 'POST', '/api/v1/memories', {
          token: alice.token,
          body: { memory: `note ${i} ${i % 2 === 0 ? 'Coffee' : 'tea'}`, topics: i % 2 === 0 ? ['even', 'all'] : ['all'], memory_type: i < 5 ? 'user' : 'agent' },
        });
        ids.push(reply.body.memory_id);
      }
      const all = await call(lore(), 'GET', '/api/v1/memories?sort_order=asc', { token: alice.token });
      expect(all.body.total_count).toBe(7);
      expect(all.body.data.map((m: { memory_id: string }) => m.memory_id)).toEqual(ids);
      const evens = await call(lore(), 'GET', '/api/v1/memories?topics=even,all', { token: alice.token });
      expect(evens.body.total_count).toBe(4);
      const coffee = await call(lore(), 'GET', '/api/v1/memories?search=coffee', { token: alice.token });
      expect(coffee.body.total_count).toBe(4);
      const agents = await call(lore(), 'GET', '/api/v1/memories?memory_type=agent', { token: alice.token });
      expect(agents.body.total_count).toBe(2);
      const page2 = await call(lore(), 'GET', '/api/v1/memories?sort_order=asc&skip=3&limit=3', { token: alice.token });
      expect(page2.body).toMatchObject({ total_count: 7, page: 2, limit: 3, next_page: 3, has_more: true });
      expect(page2.body.data.map((m: { memory_id: string }) => m.memory_id)).toEqual(ids.slice(3, 6));

      for (const filter of ['', '&topics=all']) {
        const seen: string[] = [];
        let cursor: string | null = null;
        let inserted = false;
        do {
          const path: string = `/api/v1/memories?sort_order=asc&limit=2${filter}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
          const page = await call(lore(), 'GET', path, { token: alice.token });
          expect(page.status).toBe(200);
          seen.push(...page.body.data.map((m: { memory_id: string }) => m.memory_id));
          cursor = page.body.next_cursor;
          // A cursor page: has_more is exactly "a cursor follows", and it claims no page numbers.
          if (path.includes('cursor=')) expect(page.body).toMatchObject({ has_more: cursor !== null, page: null, next_page: null });
          if (!inserted) {
            // A concurrent insert must not shift or repeat what the cursor walks over.
            await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'late', topics: ['all'] } });
            inserted = true;
          }
        } while (cursor);
        expect(seen.slice(0, 7)).toEqual(ids);
        expect(new Set(seen).size).toBe(seen.length);
      }
      const badCursor = await call(lore(), 'GET', '/api/v1/memories?cursor=garbage', { token: alice.token });
      expect(badCursor.status).toBe(422);
      const badLimit = await call(lore(), 'GET', '/api/v1/memories?limit=0', { token: alice.token });
      expect(badLimit.status).toBe(422);
      expect(badLimit.body.detail[0].loc).toEqual(['query', 'limit']);
    });

    it('exports and bulk-deletes all memories of a user', async () => {
      const alice = await user(lore());
      const bob = await user(lore(), alice.workspace);
      for (const text of ['one', 'two', 'three']) await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: text } });
      await call(lore(), 'POST', '/api/v1/memories', { token: bob.token, body: { memory: 'bob keeps this' } });
      const first = (await call(lore(), 'GET', '/api/v1/memories?sort_order=asc', { token: alice.token })).body.data[0];
      await call(lore(), 'POST', `/api/v1/memories/${first.memory_id}/replace`, { token: alice.token, body: { memory: 'one, revised' } });
      const exported = await call(lore(), 'GET', '/api/v1/memories/export', { token: alice.token });
      expect(exported.status).toBe(200);
      expect(exported.body.user_id).toBe(alice.id);
      expect(exported.body.memories).toHaveLength(3);
      const revised = exported.body.memories.find((m: { memory_id: string }) => m.memory_id === first.memory_id);
      expect(revised.history.map((v: { memory: string }) => v.memory)).toEqual(['one', 'one, revised']);
      const wiped = await call(lore(), 'DELETE', '/api/v1/memories', { token: alice.token });
      expect(wiped.status).toBe(200);
      expect(wiped.body.deleted_count).toBe(3);
      expect((await call(lore(), 'GET', '/api/v1/memories', { token: alice.token })).body.total_count).toBe(0);
      expect((await call(lore(), 'GET', '/api/v1/memories', { token: bob.token })).body.total_count).toBe(1);
    });

    it('never loses an update under concurrent replaces, and retries with backoff let nearly all of them through', async () => {
      const alice = await user(lore());
      const id = (await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'v0' } })).body.memory_id;
      const writers = 12;
      // Open the connections first, so that the replaces arrive together rather than one per handshake.
      await Promise.all(Array.from({ length: writers }, () => call(lore(), 'GET', `/api/v1/memories/${id}`, { token: alice.token })));
      const replies = await Promise.all(
        Array.from({ length: writers }, (_, i) => call(lore(), 'POST', `/api/v1/memories/${id}/replace`, { token: alice.token, body: { memory: `v${i + 1}` } })),
      );
      const succeeded = replies.filter((r) => r.status === 200);
      const conflicts = replies.filter((r) => r.status === 409);
      expect(succeeded.length + conflicts.length).toBe(writers);
      // Losing replaces are re-decided, not refused. Measured on the standalone app (then with 5
      // retries): 11–12 of 12 with jittered backoff, 6 when the losers retry at once, 1 without retries.
      expect(succeeded.length).toBeGreaterThanOrEqual(9);
      for (const r of conflicts) {
        expect(r.body).toEqual({ detail: expect.stringMatching(/changed by another request at the same time; retry/) });
        expect(r.body.detail).not.toContain(id);
      }

      const history = (await call(lore(), 'GET', `/api/v1/memories/${id}/history`, { token: alice.token })).body.versions;
      expect(history).toHaveLength(1 + succeeded.length);
      const texts: string[] = history.map((v: { memory: string }) => v.memory);
      expect(texts[0]).toBe('v0');
      // Every success answered with what it wrote, and that is in the history exactly once.
      replies.forEach((r, i) => {
        if (r.status !== 200) return;
        expect(r.body.new_memory.memory).toBe(`v${i + 1}`);
        expect(texts.filter((t) => t === `v${i + 1}`)).toHaveLength(1);
      });
      expect(succeeded.map((r) => r.body.new_memory.memory).sort()).toEqual(texts.slice(1).sort());
      // Each success replaced a distinct version: the chain of old → new has no gaps.
      const olds = succeeded.map((r) => r.body.old_memory.memory);
      expect(new Set(olds).size).toBe(succeeded.length);
      expect(olds.sort()).toEqual(texts.slice(0, -1).sort());
      const current = (await call(lore(), 'GET', `/api/v1/memories/${id}`, { token: alice.token })).body.memory;
      expect(current).toBe(texts[texts.length - 1]);
    });
  });
}
