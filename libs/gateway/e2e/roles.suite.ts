import { call, mintJwt, unique, type LoreUnderTest, type Reply } from './e2e-client';

/** A workspace with two members and an administrator (the default admin claim: `roles` containing `admin`). */
async function workspace(lore: LoreUnderTest) {
  const id = unique('ws');
  const member = async (prefix: string, roles?: string | string[]) => {
    const sub = unique(prefix);
    return { sub, token: await mintJwt(lore.jwtSecret, { sub, workspace_id: id, ...(roles === undefined ? {} : { roles }) }) };
  };
  return { id, alice: await member('alice'), bob: await member('bob'), admin: await member('admin', ['reader', 'admin']) };
}

async function mintKey(lore: LoreUnderTest, token: string, body: Record<string, unknown> = {}): Promise<Reply> {
  return call(lore, 'POST', '/api/v1/api-keys', { token, body: { label: unique('key'), ...body } });
}

async function created(reply: Promise<Reply>): Promise<any> {
  const done = await reply;
  expect({ status: done.status, body: done.body }).toMatchObject({ status: 201 });
  return done.body;
}

/**
 * Roles inside a workspace (ARCHITECTURE §6): only an administrator, or a key one minted,
 * acts for another user's user_id, in every context; admin permissions are theirs alone;
 * JWTs must expire, within a bounded lifetime.
 */
export function describeRoles(lore: () => LoreUnderTest): void {
  describe('roles inside a workspace', () => {
    /** Bob's data of every kind: a memory, a conversation with a message, a connection. */
    async function bobsData(bob: { token: string }) {
      const memory = await created(call(lore(), 'POST', '/api/v1/memories', { token: bob.token, body: { memory: 'bob keeps his pin in the blue drawer' } }));
      const conversation = await created(call(lore(), 'POST', '/api/v1/conversations', { token: bob.token, body: { title: 'bob private chat' } }));
      await created(call(lore(), 'POST', `/api/v1/conversations/${conversation.id}/messages`, { token: bob.token, body: { content: 'bob private words' } }));
      const connection = await created(
        call(lore(), 'POST', '/api/v1/connections', { token: bob.token, body: { integration: 'openai', label: 'bob openai', credentials: { api_key: 'sk-proj-bobMustKeepThis0123456789abcdef' } } }),
      );
      return { memory: memory.memory, conversation, connection };
    }

    /** Every way of reaching Bob's records by naming him: memories, search, conversations, messages, context, connections. */
    function namingBob(sub: string, data: Awaited<ReturnType<typeof bobsData>>): ReadonlyArray<readonly [string, string, unknown]> {
      const as = `user_id=${sub}`;
      return [
        ['GET', `/api/v1/memories?${as}`, undefined],
        ['GET', `/api/v1/memories/${data.memory.memory_id}?${as}`, undefined],
        ['POST', `/api/v1/memories/${data.memory.memory_id}/replace`, { user_id: sub, memory: 'overwritten' }],
        ['POST', '/api/v1/memories', { user_id: sub, memory: 'planted' }],
        ['POST', '/api/v1/memories/search', { user_id: sub, query: 'pin drawer' }],
        ['GET', `/api/v1/conversations?${as}`, undefined],
        ['GET', `/api/v1/conversations/${data.conversation.id}?${as}`, undefined],
        ['GET', `/api/v1/messages?${as}`, undefined],
        ['POST', `/api/v1/conversations/${data.conversation.id}/context?${as}`, { memory_limit: 0, chunk_limit: 0 }],
        ['GET', `/api/v1/connections?${as}`, undefined],
        ['GET', `/api/v1/connections/${data.connection.id}?${as}`, undefined],
      ];
    }

    it("refuses a member's key (even '*') every other member's user_id (403), and leaves their data as it was", async () => {
      const { alice, bob } = await workspace(lore());
      const data = await bobsData(bob);
      const key = await created(mintKey(lore(), alice.token, { permissions: ['*'] }));
      expect(key).toMatchObject({ created_by: alice.sub, acts_for_others: false });
      for (const [method, path, body] of namingBob(bob.sub, data)) {
        const reply = await call(lore(), method, path, { token: key.key, ...(body === undefined ? {} : { body }) });
        expect({ method, path, status: reply.status }).toEqual({ method, path, status: 403 });
        expect(JSON.stringify(reply.body)).not.toMatch(/blue drawer|private words|sk-proj/);
      }
      // Its own user still works, named or not.
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${alice.sub}`, { token: key.key })).status).toBe(200);
      expect((await call(lore(), 'GET', '/api/v1/conversations', { token: key.key })).status).toBe(200);
      // A key minted by that key inherits the limit.
      const child = await created(mintKey(lore(), key.key));
      expect(child.acts_for_others).toBe(false);
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${bob.sub}`, { token: child.key })).status).toBe(403);
      expect((await call(lore(), 'GET', `/api/v1/memories/${data.memory.memory_id}`, { token: bob.token })).body.memory).toBe('bob keeps his pin in the blue drawer');
    });

    it("lets an administrator's key, and the keys it mints, act for any member's user_id in every context", async () => {
      const { admin, bob } = await workspace(lore());
      const data = await bobsData(bob);
      const key = await created(mintKey(lore(), admin.token, { permissions: ['*'] }));
      expect(key).toMatchObject({ created_by: admin.sub, acts_for_others: true });
      for (const [method, path, body] of namingBob(bob.sub, data)) {
        const reply = await call(lore(), method, path, { token: key.key, ...(body === undefined ? {} : { body }) });
        expect({ method, path, ok: reply.status >= 200 && reply.status < 300 }).toEqual({ method, path, ok: true });
      }
      const listed = await call(lore(), 'GET', `/api/v1/connections?user_id=${bob.sub}`, { token: key.key });
      expect(listed.body.data.map((c: { id: string }) => c.id)).toEqual([data.connection.id]);
      // What it wrote for Bob is Bob's.
      expect((await call(lore(), 'GET', `/api/v1/memories/${data.memory.memory_id}`, { token: bob.token })).body.memory).toBe('overwritten');
      const child = await created(mintKey(lore(), key.key, { permissions: ['memories:read'] }));
      expect(child.acts_for_others).toBe(true);
      expect((await call(lore(), 'GET', `/api/v1/memories?user_id=${bob.sub}`, { token: child.key })).status).toBe(200);
      // Named nobody: it acts for the administrator who minted it.
      expect((await call(lore(), 'GET', '/api/v1/conversations', { token: key.key })).body.conversations).toEqual([]);
    });

    it("lets an administrator's JWT name any member; a member's JWT only itself", async () => {
      const { admin, alice, bob } = await workspace(lore());
      const data = await bobsData(bob);
      expect((await call(lore(), 'GET', `/api/v1/memories/${data.memory.memory_id}?user_id=${bob.sub}`, { token: admin.token })).status).toBe(200);
      expect((await call(lore(), 'GET', `/api/v1/conversations/${data.conversation.id}?user_id=${bob.sub}`, { token: admin.token })).status).toBe(200);
      expect((await call(lore(), 'GET', `/api/v1/memories/${data.memory.memory_id}?user_id=${bob.sub}`, { token: alice.token })).status).toBe(403);
      expect((await call(lore(), 'GET', `/api/v1/connections?user_id=${bob.sub}`, { token: alice.token })).status).toBe(403);
      // A role claim given as a plain string counts too.
      const single = await mintJwt(lore().jwtSecret, { sub: unique('boss'), workspace_id: (await workspace(lore())).id, roles: 'admin' });
      expect((await mintKey(lore(), single)).body.acts_for_others).toBe(true);
    });

    it('keeps admin permissions to administrators: a member can neither grant nor use them', async () => {
      const { admin, alice } = await workspace(lore());
      for (const permissions of [['admin:read'], ['admin:write'], ['admin:*'], ['memories:read', 'admin:read']]) {
        const refused = await mintKey(lore(), alice.token, { permissions });
        expect({ permissions, status: refused.status }).toEqual({ permissions, status: 403 });
        expect(refused.body.detail).toMatch(/administrator/);
      }
      const everything = await created(mintKey(lore(), alice.token));
      expect(everything).toMatchObject({ permissions: ['*'], acts_for_others: false });
      expect((await mintKey(lore(), everything.key, { permissions: ['admin:read'] })).status).toBe(403);
      const operator = await created(mintKey(lore(), admin.token, { permissions: ['admin:*', 'api_keys:*'] }));
      expect(operator).toMatchObject({ permissions: ['admin:*', 'api_keys:*'], acts_for_others: true });
      expect((await mintKey(lore(), operator.key, { permissions: ['admin:read'] })).status).toBe(201);
      // A member cannot take away the keys administrators run the workspace with; an administrator can.
      expect((await call(lore(), 'DELETE', `/api/v1/api-keys/${operator.id}`, { token: alice.token })).status).toBe(403);
      expect((await call(lore(), 'DELETE', `/api/v1/api-keys/${operator.id}`, { token: admin.token })).status).toBe(200);
    });

    it('refuses a JWT without exp, or valid for longer than the maximum lifetime (401, saying why)', async () => {
      const ws = unique('ws');
      const check = async (token: string, detail: RegExp) => {
        const reply = await call(lore(), 'GET', '/api/v1/conversations', { token });
        expect({ status: reply.status, detail: reply.body.detail }).toEqual({ status: 401, detail: expect.stringMatching(detail) });
        expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
      };
      await check(await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: ws }, null), /no exp/);
      await check(await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: ws, roles: ['admin'] }, null), /no exp/);
      await check(await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: ws }, '25h'), /lifetime exceeds the maximum of 86400 seconds/);
      await check(await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: ws }, '3650d'), /lifetime exceeds/);
      expect((await call(lore(), 'GET', '/api/v1/conversations', { token: await mintJwt(lore().jwtSecret, { sub: unique('user'), workspace_id: ws }, '23h') })).status).toBe(200);
    });
  });
}
