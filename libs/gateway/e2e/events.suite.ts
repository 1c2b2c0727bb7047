import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';
import { SseConnection } from './sse-client';
import { addContent, createCollection, waitCompleted } from './knowledge-fixtures';

/**
 * Stream caps small enough to reach in a test; pass with the deployment's environment (both
 * topologies do). No other test holds more than 3 streams of one caller or 5 of one workspace.
 */
export const EVENTS_TEST_ENV = { EVENTS_MAX_STREAMS_PER_CALLER: '3', EVENTS_MAX_STREAMS_PER_WORKSPACE: '5' };

/** An SSE id as the stream sends it: a sealed token (48 base64url characters), never a feed position. */
const OPAQUE_ID = /^[A-Za-z0-9_-]{48}$/;

/**
 * `GET /api/v1/events` over HTTP: the workspace's integration events as Server-Sent Events,
 * resumable by id. Expects the deployment to run with EVENTS_HEARTBEAT_MS at most 1000.
 */
export function describeEventStream(lore: () => LoreUnderTest): void {
  describe('event stream (GET /api/v1/events)', () => {
    const open: SseConnection[] = [];
    afterEach(() => {
      for (const connection of open.splice(0)) connection.close();
    });

    const connect = async (path: string, options: { token: string; lastEventId?: string; headers?: Record<string, string> }): Promise<SseConnection> => {
      const connection = await SseConnection.open(lore(), path, options);
      open.push(connection);
      return connection;
    };
    const newUser = async (): Promise<{ token: string; workspace: string }> => {
      const workspace = unique('events-ws');
      return { workspace, token: await mintJwt(lore().jwtSecret, { sub: unique('events-user'), workspace_id: workspace }) };
    };
    const createMemory = async (token: string): Promise<string> => {
      const reply = await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: `event stream ${unique('m')}` } });
      expect(reply.status).toBe(201);
      return reply.body.memory_id as string;
    };
    const parsed = (connection: SseConnection): Array<{ id: string | undefined; event: Record<string, unknown> }> =>
      connection.events().filter((m) => m.event === undefined).map((m) => ({ id: m.id, event: JSON.parse(m.data ?? 'null') as Record<string, unknown> }));

    it('streams the workspace\'s new events, with ids, and nothing of another workspace', async () => {
      const alice = await newUser();
      const bob = await newUser();
      const stream = await connect('/api/v1/events', { token: alice.token });
      expect(stream.status).toBe(200);
      expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
      expect(stream.headers.get('cache-control')).toMatch(/no-cache/);
      await stream.waitFor((messages) => messages.length > 0); // the stream is open (retry line / heartbeat)

      await createMemory(bob.token);
      const mine = await createMemory(alice.token);
      const [first] = await stream.waitForEvents(1);
      expect(first?.id).toMatch(OPAQUE_ID);
      expect(JSON.parse(first?.data ?? '')).toMatchObject({ type: 'memory.created', memory_id: mine, workspace_id: alice.workspace });
      // Bob's event, published first, never arrives.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(parsed(stream).map((e) => e.event['workspace_id'])).toEqual([alice.workspace]);
    });

    it('resumes after Last-Event-ID (or ?after=) with every later event, in order, none twice', async () => {
      const alice = await newUser();
      const stream = await connect('/api/v1/events', { token: alice.token });
      await stream.waitFor((messages) => messages.length > 0);
      const firstMemory = await createMemory(alice.token);
      const [first] = await stream.waitForEvents(1);
      stream.close();

      const later = [await createMemory(alice.token), await createMemory(alice.token), await createMemory(alice.token)];
      const resumed = await connect('/api/v1/events', { token: alice.token, lastEventId: first?.id ?? '' });
      await resumed.waitForEvents(3);
      expect(parsed(resumed).map((e) => e.event['memory_id'])).toEqual(later);
      const ids = parsed(resumed).map((e) => e.id);
      for (const id of ids) expect(id).toMatch(OPAQUE_ID);

      const fromQuery = await connect(`/api/v1/events?after=0`, { token: alice.token });
      await fromQuery.waitForEvents(4);
      expect(parsed(fromQuery).map((e) => e.event['memory_id'])).toEqual([firstMemory, ...later]);
      // The header wins over the query: EventSource reconnects to the same URL with Last-Event-ID.
      const both = await connect(`/api/v1/events?after=0`, { token: alice.token, lastEventId: ids[1] ?? '' });
      await both.waitForEvents(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(parsed(both).map((e) => e.event['memory_id'])).toEqual([later[2]]);
    });

    it('gives opaque ids: no feed position, and none that works in another workspace or after a change', async () => {
      const alice = await newUser();
      const bob = await newUser();
      const stream = await connect('/api/v1/events', { token: alice.token });
      await stream.waitFor((messages) => messages.length > 0);
      await createMemory(alice.token);
      // Another workspace's activity between two of Alice's events …
      for (let i = 0; i < 3; i++) await createMemory(bob.token);
      await createMemory(alice.token);
      await stream.waitForEvents(2);
      const [one, two] = parsed(stream);
      // … shows in nothing Alice sees: the ids are sealed tokens, not positions to subtract.
      expect(one?.id).toMatch(OPAQUE_ID);
      expect(two?.id).toMatch(OPAQUE_ID);
      expect(stream.events().filter((m) => m.id !== undefined && !OPAQUE_ID.test(m.id))).toEqual([]);

      // Bob cannot resume from (or learn from) Alice's id, a changed id, or a made-up position.
      const stolen = await connect('/api/v1/events', { token: bob.token, lastEventId: one?.id ?? '' });
      expect(stolen.status).toBe(422);
      expect(JSON.parse(stolen.body).detail[0]).toMatchObject({ loc: ['header', 'last-event-id'], type: 'value_error' });
      const id = one?.id ?? '';
      const altered = `${id.slice(0, 20)}${id.charAt(20) === 'A' ? 'B' : 'A'}${id.slice(21)}`;
      expect((await connect('/api/v1/events', { token: alice.token, lastEventId: altered })).status).toBe(422);
      expect((await connect('/api/v1/events?after=5', { token: alice.token })).status).toBe(422);
      // Alice's own id still resumes, from either place.
      const resumed = await connect(`/api/v1/events?after=${encodeURIComponent(id)}`, { token: alice.token });
      await resumed.waitForEvents(1);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(parsed(resumed).map((e) => e.event['workspace_id'])).toEqual([alice.workspace]);
    });

    it('narrows to the asked contexts and types', async () => {
      const alice = await newUser();
      const deletes = await connect('/api/v1/events?after=0&types=memory.deleted', { token: alice.token });
      const memories = await connect('/api/v1/events?after=0&contexts=memory', { token: alice.token });
      const keys = await connect('/api/v1/events?after=0&contexts=api_key', { token: alice.token });
      const id = await createMemory(alice.token);
      expect((await call(lore(), 'DELETE', `/api/v1/memories/${id}`, { token: alice.token })).status).toBe(200);
      await deletes.waitForEvents(1);
      await memories.waitForEvents(2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(parsed(deletes).map((e) => e.event['type'])).toEqual(['memory.deleted']);
      expect(parsed(memories).map((e) => e.event['type'])).toEqual(['memory.created', 'memory.deleted']);
      expect(parsed(keys)).toEqual([]);
    });

    it("streams a content's processing: created, processing, its chunks, completed (ids, status and counts only)", async () => {
      const alice = await newUser();
      const contents = await connect('/api/v1/events?contexts=content', { token: alice.token });
      await contents.waitFor((messages) => messages.length > 0);
      const collection = await createCollection(lore(), alice.token);
      const content = await addContent(lore(), alice.token, { collection_id: collection.id, name: 'kettle.txt', text: 'Descale the kettle monthly with citric acid.' });
      const completed = await waitCompleted(lore(), alice.token, content.id as string);
      await contents.waitFor(() => parsed(contents).some((e) => e.event['type'] === 'content.completed'));
      const events = parsed(contents).map((e) => e.event);
      expect(events.map((e) => e['type'])).toEqual(['content.created', 'content.processing', 'content.chunks_added', 'content.completed']);
      const ids = { workspace_id: alice.workspace, collection_id: collection.id, content_id: content.id };
      expect(events).toEqual([
        { ...ids, type: 'content.created', status: 'new', chunks: null, event_id: expect.any(String), occurred_at: expect.any(String) },
        { ...ids, type: 'content.processing', status: 'processing', chunks: null, event_id: expect.any(String), occurred_at: expect.any(String) },
        { ...ids, type: 'content.chunks_added', status: 'processing', chunks: completed.chunk_count, event_id: expect.any(String), occurred_at: expect.any(String) },
        { ...ids, type: 'content.completed', status: 'completed', chunks: completed.chunk_count, event_id: expect.any(String), occurred_at: expect.any(String) },
      ]);
      expect((await call(lore(), 'DELETE', `/api/v1/contents/${content.id as string}`, { token: alice.token })).status).toBe(200);
      await contents.waitFor(() => parsed(contents).some((e) => e.event['type'] === 'content.deleted'));
      expect(parsed(contents).at(-1)?.event).toMatchObject({ ...ids, type: 'content.deleted', status: 'deleted' });
    });

    it('sends heartbeat comments while idle', async () => {
      const alice = await newUser();
      const stream = await connect('/api/v1/events', { token: alice.token });
      await stream.waitFor((messages) => messages.some((m) => m.comment?.startsWith('heartbeat') === true), 5_000);
    });

    it('caps open streams per caller and per workspace (429 naming the cap, with Retry-After); a closed stream frees its slot', async () => {
      const workspace = unique('events-cap-ws');
      const member = (): Promise<string> => mintJwt(lore().jwtSecret, { sub: unique('events-user'), workspace_id: workspace });
      const alice = await member();
      const alices = [await connect('/api/v1/events', { token: alice }), await connect('/api/v1/events', { token: alice }), await connect('/api/v1/events', { token: alice })];
      expect(alices.map((s) => s.status)).toEqual([200, 200, 200]);
      const fourth = await connect('/api/v1/events', { token: alice });
      expect(fourth.status).toBe(429);
      expect(fourth.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
      expect(JSON.parse(fourth.body).detail).toMatch(/EVENTS_MAX_STREAMS_PER_CALLER of 3/);

      const bob = await member();
      expect((await connect('/api/v1/events', { token: bob })).status).toBe(200);
      expect((await connect('/api/v1/events', { token: bob })).status).toBe(200);
      const carol = await connect('/api/v1/events', { token: await member() });
      expect(carol.status).toBe(429);
      expect(JSON.parse(carol.body).detail).toMatch(/EVENTS_MAX_STREAMS_PER_WORKSPACE of 5/);
      expect((await connect('/api/v1/events', { token: (await newUser()).token })).status).toBe(200);

      // The slot frees once the gateway sees the connection close.
      alices[0]?.close();
      const deadline = Date.now() + 5_000;
      let again = await connect('/api/v1/events', { token: alice });
      while (again.status === 429 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        again = await connect('/api/v1/events', { token: alice });
      }
      expect(again.status).toBe(200);
    });

    it('refuses without a token, for an API key without events:read, and for a malformed position or unknown type', async () => {
      const alice = await newUser();
      expect((await connect('/api/v1/events', { token: 'not-a-token' })).status).toBe(401);
      const key = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'no-events', permissions: ['memories:read'] } })).body.key as string;
      const refused = await connect('/api/v1/events', { token: key });
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body).detail).toMatch(/events:read/);
      const reader = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'events', permissions: ['events:read'] } })).body.key as string;
      const allowed = await connect('/api/v1/events?after=0', { token: reader });
      expect(allowed.status).toBe(200);
      // The key's own creation is an event of this workspace.
      await allowed.waitForEvents(1);

      const badHeader = await connect('/api/v1/events', { token: alice.token, lastEventId: 'abc' });
      expect(badHeader.status).toBe(422);
      expect(JSON.parse(badHeader.body).detail[0].loc).toEqual(['header', 'last-event-id']);
      const badAfter = await connect('/api/v1/events?after=-1', { token: alice.token });
      expect(badAfter.status).toBe(422);
      expect(JSON.parse(badAfter.body).detail[0].loc).toEqual(['query', 'after']);
      const badType = await connect('/api/v1/events?types=memory.exploded', { token: alice.token });
      expect(badType.status).toBe(422);
      expect(JSON.parse(badType.body).detail[0].msg).toMatch(/memory\.exploded/);
    });
  });
}
