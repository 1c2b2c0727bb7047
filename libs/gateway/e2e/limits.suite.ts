import { call, mintJwt, unique, upload, type LoreUnderTest, type Reply } from './e2e-client';
import { SseConnection } from './sse-client';
import { addContent, createCollection, waitCompleted } from './knowledge-fixtures';

/** Small limits for the suite's own workspaces (LORE_WORKSPACE_LIMITS); every other workspace keeps the generous defaults. */
export const LIMITS_TEST_ENV = {
  LORE_WORKSPACE_LIMITS: JSON.stringify({
    'limits-caller': { caller_requests_per_minute: 3, caller_burst: 3 },
    'limits-workspace': { requests_per_minute: 4, burst: 4 },
    'limits-stream': { caller_requests_per_minute: 2, caller_burst: 2 },
    'limits-memories': { memories: 2 },
    'limits-conversations': { conversations: 1 },
    'limits-bytes': { content_bytes: 100 },
    'limits-chunks': { chunks: 1 },
  }),
};

/** Request rates (429 with Retry-After and the IETF RateLimit headers) and storage quotas (403 naming the quota). */
export function describeLimits(lore: () => LoreUnderTest): void {
  const token = (workspace: string, sub = unique('limits-user')): Promise<string> => mintJwt(lore().jwtSecret, { sub, workspace_id: workspace });
  const list = (t: string): Promise<Reply> => call(lore(), 'GET', '/api/v1/memories', { token: t });

  describe('rate limits', () => {
    it('gives each caller its own budget: 429 with Retry-After and RateLimit headers once it is spent', async () => {
      const alice = await token('limits-caller');
      const first = await list(alice);
      expect(first.status).toBe(200);
      expect(first.headers.get('ratelimit-policy')).toBe('"caller";q=3;w=60, "workspace";q=24000;w=60');
      expect(first.headers.get('ratelimit')).toMatch(/^"caller";r=2;t=\d+, "workspace";r=\d+;t=\d+$/);
      expect((await list(alice)).headers.get('ratelimit')).toMatch(/^"caller";r=1;/);
      expect((await list(alice)).headers.get('ratelimit')).toMatch(/^"caller";r=0;/);

      const refused = await list(alice);
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toMatch(/Rate limit caller of 3 requests per 60 s/);
      const retryAfter = Number(refused.headers.get('retry-after'));
      // One unit frees every 20 s at 3 a minute.
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(20);
      expect(refused.headers.get('ratelimit')).toBe(`"caller";r=0;t=${retryAfter}`);
      expect(refused.headers.get('ratelimit-policy')).toBe('"caller";q=3;w=60, "workspace";q=24000;w=60');

      // Another user of the workspace, and an API key, draw on budgets of their own.
      const bobId = unique('limits-bob');
      const bob = await token('limits-caller', bobId);
      expect((await list(bob)).status).toBe(200);
      const key = await call(lore(), 'POST', '/api/v1/api-keys', { token: bob, body: { label: 'limits' } });
      expect(key.status).toBe(201);
      const byKey = await call(lore(), 'GET', `/api/v1/memories?user_id=${bobId}`, { token: key.body.key });
      expect(byKey.status).toBe(200);
      expect(byKey.headers.get('ratelimit')).toMatch(/^"caller";r=2;/);
      expect((await list(alice)).status).toBe(429);

      // Open routes are never limited and carry no rate-limit headers.
      for (const path of ['/health', '/openapi.json']) {
        const open = await call(lore(), 'GET', path, { token: alice });
        expect(open.status).toBe(200);
        expect(open.headers.get('ratelimit')).toBeNull();
      }
    });

    it('holds a workspace to its budget whichever of its callers spends it', async () => {
      const callers = await Promise.all([1, 2, 3, 4, 5].map(() => token('limits-workspace')));
      for (const caller of callers.slice(0, 4)) expect((await list(caller)).status).toBe(200);
      const refused = await list(callers[4] ?? '');
      expect(refused.status).toBe(429);
      expect(refused.body.detail).toMatch(/Rate limit workspace of 4 requests per 60 s/);
      expect(refused.headers.get('ratelimit')).toMatch(/^"workspace";r=0;t=\d+$/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      // Another workspace is not held back.
      expect((await list(await token(unique('limits-other')))).status).toBe(200);
    });

    it('counts an event stream once, when it opens', async () => {
      const carol = await token('limits-stream');
      const stream = await SseConnection.open(lore(), '/api/v1/events', { token: carol });
      try {
        expect(stream.status).toBe(200);
        expect(stream.headers.get('ratelimit')).toMatch(/^"caller";r=1;/);
        await new Promise((resolve) => setTimeout(resolve, 300));
        expect((await list(carol)).status).toBe(200);
        expect((await list(carol)).status).toBe(429);
      } finally {
        stream.close();
      }
    });
  });

  describe('storage quotas', () => {
    const refusedFor = (reply: Reply, quota: string, limit: number): void => {
      expect(reply.status).toBe(403);
      expect(reply.body.detail).toMatch(new RegExp(`quota ${quota} of ${limit} reached`));
    };

    it('refuses a memory past the workspace quota, naming it', async () => {
      const t = await token('limits-memories');
      for (let i = 0; i < 2; i++) expect((await call(lore(), 'POST', '/api/v1/memories', { token: t, body: { memory: `fact ${i}` } })).status).toBe(201);
      refusedFor(await call(lore(), 'POST', '/api/v1/memories', { token: t, body: { memory: 'one too many' } }), 'memories', 2);
      // Every user of the workspace counts towards it.
      refusedFor(await call(lore(), 'POST', '/api/v1/memories', { token: await token('limits-memories'), body: { memory: 'mine' } }), 'memories', 2);
    });

    it('refuses a conversation past the workspace quota, naming it', async () => {
      const t = await token('limits-conversations');
      expect((await call(lore(), 'POST', '/api/v1/conversations', { token: t, body: {} })).status).toBe(201);
      refusedFor(await call(lore(), 'POST', '/api/v1/conversations', { token: t, body: {} }), 'conversations', 1);
    });

    it('refuses a content whose text would pass the content_bytes quota, naming it', async () => {
      const t = await token('limits-bytes');
      const collection = await createCollection(lore(), t);
      await addContent(lore(), t, { collection_id: collection.id, name: 'first', text: 'x'.repeat(60) });
      refusedFor(await call(lore(), 'POST', '/api/v1/contents', { token: t, body: { collection_id: collection.id, name: 'second', text: 'y'.repeat(60) } }), 'content_bytes', 100);
    });

    it('refuses a content once the workspace holds its chunks quota, naming it', async () => {
      const t = await token('limits-chunks');
      const collection = await createCollection(lore(), t);
      const content = await addContent(lore(), t, { collection_id: collection.id, name: 'first', text: 'Bees pollinate flowers in spring.' });
      expect((await waitCompleted(lore(), t, content.id)).chunk_count).toBeGreaterThanOrEqual(1);
      refusedFor(await call(lore(), 'POST', '/api/v1/contents', { token: t, body: { collection_id: collection.id, name: 'second', text: 'Ants farm aphids.' } }), 'chunks', 1);
      // A file is refused before it is read: this one, read, would be a 422 (it is no PDF).
      const broken = { name: 'broken.pdf', type: 'application/pdf', content: 'no PDF at all' };
      refusedFor(await upload(lore(), '/api/v1/contents', { token: t, file: broken, fields: { collection_id: collection.id } }), 'chunks', 1);
    });
  });
}
