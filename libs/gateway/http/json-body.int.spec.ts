import { performance } from 'node:perf_hooks';
import Fastify, { type FastifyInstance } from 'fastify';
import { AppError } from '@lore/platform/kernel';
import type { RequestScope } from '@lore/platform/http';
import { useJsonBodyParser } from './json-body';
import { noteAdmittedScope } from './admitted-scopes';
import { JSON_BODY_QUEUE } from './json-body-thread';

const STATUS: Partial<Record<string, number>> = { validation: 422, rate_limited: 429 };

/**
 * A Fastify app with the gateway's JSON body parser, echoing the body, and 422/429/503 as the
 * gateway answers them. A request is admitted to the workspace its `x-test-workspace` names, as
 * the gateway's onRequest hooks admit a caller's.
 */
async function echoApp(threadFromBytes: number, read: string[] = []): Promise<FastifyInstance> {
  const app = Fastify({ bodyLimit: 64 << 20 });
  useJsonBodyParser(app, { threadFromBytes, queue: JSON_BODY_QUEUE });
  app.addHook('onRequest', (request, _reply, done) => {
    const workspaceId = request.headers['x-test-workspace'];
    if (typeof workspaceId === 'string') noteAdmittedScope(request, { workspaceId } as RequestScope);
    done();
  });
  app.setErrorHandler((error: Error, _request, reply) => {
    if (error instanceof AppError) return reply.code(STATUS[error.code] ?? 503).send({ code: error.code, issues: error.issues });
    return reply.code(500).send({ message: error.message });
  });
  app.post('/echo', async (request) => ({ body: request.body ?? null }));
  app.post('/take', async (request) => {
    read.push((request.body as { label?: string } | undefined)?.label ?? '?');
    return { taken: typeof request.body };
  });
  await app.ready();
  return app;
}

const post = (app: FastifyInstance, payload: string | Buffer) => app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });

describe('the JSON body parser, on the event loop and on its reader thread', () => {
  const apps: FastifyInstance[] = [];
  afterAll(async () => {
    for (const app of apps) await app.close();
  });

  it('answers every body the same way on its reader thread as on the event loop', async () => {
    const inline = await echoApp(Infinity);
    const threaded = await echoApp(1);
    apps.push(inline, threaded);
    const bodies: Array<string | Buffer> = [
      '{"text": "plain", "n": [1, 2.5, -0, null, true], "nested": {"a": {"b": "c"}}}',
      '{"text": "broken",}',
      `${'['.repeat(600)}${']'.repeat(600)}`,
      '{"__proto__": {"admin": true}}',
      '{"a": {"constructor": {"prototype": {}}}}',
      '{"big": 12345678901234567890}',
      '{"lone": "\\ud800"}',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
      '',
    ];
    for (const body of bodies) {
      const [a, b] = await Promise.all([post(inline, body), post(threaded, body)]);
      expect({ status: b.statusCode, body: b.json<unknown>() }).toEqual({ status: a.statusCode, body: a.json<unknown>() });
    }
    expect((await post(threaded, '{"x": 1}')).json()).toEqual({ body: { x: 1 } });
    expect((await post(threaded, '{"__proto__": {}}')).statusCode).toBe(422);
  });

  it('reads a large body off the event loop: the loop is busy a fraction of the time it is when parsing itself', async () => {
    const inline = await echoApp(Infinity);
    const threaded = await echoApp(1 << 20);
    apps.push(inline, threaded);
    // Mostly one long text, as a content upload is: the parsed value comes back to the event loop as a copy.
    const body = JSON.stringify({ text: 'words and "more" words\n'.repeat(800_000), metadata: { source: 'bench', tags: ['a', 'b'] } });
    await post(threaded, '{"warm": "the reader starts"}'); // small: inline; the thread starts with the first large one
    await post(threaded, body);
    const busy = async (app: FastifyInstance): Promise<number> => {
      const before = performance.eventLoopUtilization();
      const reply = await app.inject({ method: 'POST', url: '/take', headers: { 'content-type': 'application/json' }, payload: body });
      expect(reply.statusCode).toBe(200);
      return performance.eventLoopUtilization(before).active;
    };
    const onLoop = await busy(inline);
    const offLoop = await busy(threaded);
    expect(offLoop).toBeLessThan(onLoop / 2);
  });

  it('reads large bodies in turns by workspace: one behind another workspace\'s burst waits for one of them, not all', async () => {
    const read: string[] = [];
    const app = await echoApp(1 << 20, read);
    apps.push(app);
    // ~8 MB each, mostly text: ~0.1 s on the thread, so the burst is still waiting when B's body comes.
    const text = 'words and "more" words\n'.repeat(350_000);
    const take = (workspace: string, label: string) =>
      app.inject({ method: 'POST', url: '/take', headers: { 'content-type': 'application/json', 'x-test-workspace': workspace }, payload: JSON.stringify({ label, text }) });
    const burst = ['a1', 'a2', 'a3', 'a4'].map((label) => take('ws_a', label));
    // A fifth of A's at once is over its share of the queue: 429, its own bodies being in the way.
    const fifth = take('ws_a', 'a5');
    const other = take('ws_b', 'b1');
    const replies = await Promise.all([...burst, fifth, other]);
    expect(replies.map((reply) => reply.statusCode)).toEqual([200, 200, 200, 200, 429, 200]);
    expect(replies[4]?.json<{ code: string }>().code).toBe('rate_limited');
    // A's first had the thread when B's came: B's is read next, before the rest of A's burst.
    expect(read).toEqual(['a1', 'b1', 'a2', 'a3', 'a4']);
  });
});
