import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';

async function user(lore: LoreUnderTest, workspace = unique('ws')): Promise<{ token: string; id: string }> {
  const id = unique('user');
  return { token: await mintJwt(lore.jwtSecret, { sub: id, workspace_id: workspace }), id };
}

const search = (lore: LoreUnderTest, token: string, body: Record<string, unknown>) => call(lore, 'POST', '/api/v1/memories/search', { token, body });
const texts = (reply: { body: { results: { memory: string }[] } }) => reply.body.results.map((r) => r.memory);

/** Memory search (needs the embedding model: the app under test has MODELS_DIR). */
export function describeMemorySearch(lore: () => LoreUnderTest): void {
  describe('memory search', () => {
    it('finds a user\'s memories by meaning and by keyword, right after writing them, with sub-scores', async () => {
      const alice = await user(lore());
      for (const memory of ['I love hiking in the Alps', 'My favourite food is sushi', 'I am allergic to peanuts']) {
        expect((await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory, topics: ['prefs'] } })).status).toBe(201);
      }
      const byMeaning = await search(lore(), alice.token, { query: 'which nuts make me ill', limit: 1 });
      expect(byMeaning.status).toBe(200);
      expect(texts(byMeaning)).toEqual(['I am allergic to peanuts']);
      const hit = byMeaning.body.results[0];
      expect(hit).toMatchObject({ user_id: alice.id, memory_type: 'user', topics: ['prefs'] });
      expect(typeof hit.score).toBe('number');
      expect(hit.scores.vector).toMatchObject({ rank: 1 });
      expect(typeof byMeaning.body.execution_time_ms).toBe('number');
      const byKeyword = await search(lore(), alice.token, { query: 'sushi' });
      expect(texts(byKeyword)[0]).toBe('My favourite food is sushi');
      expect(byKeyword.body.results[0].scores.keyword.rank).toBe(1);
    });

    it('searches only the caller\'s own memories, and filters by topics and type', async () => {
      const workspace = unique('ws');
      const alice = await user(lore(), workspace);
      const bob = await user(lore(), workspace);
      const marker = unique('zebra');
      await call(lore(), 'POST', '/api/v1/memories', { token: bob.token, body: { memory: `Bob keeps a ${marker}` } });
      await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'Alice drinks tea', topics: ['drinks'] } });
      await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: 'Alice plans a trip', topics: ['travel'], memory_type: 'agent' } });
      expect(texts(await search(lore(), alice.token, { query: marker }))).not.toContain(`Bob keeps a ${marker}`);
      expect(texts(await search(lore(), bob.token, { query: marker }))).toEqual([`Bob keeps a ${marker}`]);
      expect(texts(await search(lore(), alice.token, { query: 'Alice', topics: ['travel'] }))).toEqual(['Alice plans a trip']);
      expect(texts(await search(lore(), alice.token, { query: 'Alice', memory_type: 'user' }))).toEqual(['Alice drinks tea']);
      expect((await search(lore(), alice.token, { query: 'x', user_id: bob.id })).status).toBe(403);
    });

    it('forgets the old text on replace and everything on delete', async () => {
      const alice = await user(lore());
      const oldWord = unique('oldword');
      const newWord = unique('newword');
      const created = await call(lore(), 'POST', '/api/v1/memories', { token: alice.token, body: { memory: `remember ${oldWord}` } });
      const id = created.body.memory_id;
      expect(texts(await search(lore(), alice.token, { query: oldWord, limit: 5 }))).toEqual([`remember ${oldWord}`]);
      await call(lore(), 'POST', `/api/v1/memories/${id}/replace`, { token: alice.token, body: { memory: `remember ${newWord}` } });
      const afterReplace = await search(lore(), alice.token, { query: oldWord });
      expect(texts(afterReplace)).toEqual([`remember ${newWord}`]); // the one memory, by meaning; the old text is gone
      expect(afterReplace.body.results[0].scores.keyword.score).toBe(0);
      expect((await call(lore(), 'DELETE', `/api/v1/memories/${id}`, { token: alice.token })).status).toBe(200);
      expect(texts(await search(lore(), alice.token, { query: newWord }))).toEqual([]);
    });

    it('indexes a user id of the longest length the API takes, and no other workspace notices it', async () => {
      // Regression: the index partition used to be `<workspace>/<user>`; past 256 characters the
      // vector store refused it and the index reactor failed forever, for every workspace.
      const workspace = unique('ws');
      const longId = `${unique('u')}${'x'.repeat(255)}`.slice(0, 255);
      const token = await mintJwt(lore().jwtSecret, { sub: longId, workspace_id: workspace });
      const word = unique('longuser');
      const created = await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: `remember ${word}` } });
      expect(created.status).toBe(201);
      expect(texts(await search(lore(), token, { query: word }))).toEqual([`remember ${word}`]);
      // The context endpoint reads the same partition (through the memory service's search).
      const conversation = await call(lore(), 'POST', '/api/v1/conversations', { token, body: { title: 'long user' } });
      await call(lore(), 'POST', `/api/v1/conversations/${conversation.body.id}/messages`, { token, body: { content: `what about ${word}?` } });
      const context = await call(lore(), 'POST', `/api/v1/conversations/${conversation.body.id}/context`, { token, body: {} });
      expect(context.status).toBe(200);
      expect(context.body.memories.map((m: { memory: string }) => m.memory)).toContain(`remember ${word}`);
      const other = await user(lore());
      const otherWord = unique('otherws');
      const kept = await call(lore(), 'POST', '/api/v1/memories', { token: other.token, body: { memory: `note ${otherWord}` } });
      expect(texts(await search(lore(), other.token, { query: otherWord }))).toEqual([`note ${otherWord}`]);
      expect((await call(lore(), 'DELETE', `/api/v1/memories/${kept.body.memory_id}`, { token: other.token })).status).toBe(200);
      expect((await call(lore(), 'DELETE', `/api/v1/memories/${created.body.memory_id}`, { token })).status).toBe(200);
      expect(texts(await search(lore(), token, { query: word }))).toEqual([]);
      expect((await call(lore(), 'GET', '/ready')).status).toBe(200);
    });

    it('validates the request', async () => {
      const alice = await user(lore());
      expect((await search(lore(), alice.token, { query: '' })).status).toBe(422);
      expect((await search(lore(), alice.token, { query: 'x', limit: 101 })).status).toBe(422);
      expect((await search(lore(), alice.token, {})).body.detail[0].loc).toEqual(['body', 'query']);
    });
  });
}
