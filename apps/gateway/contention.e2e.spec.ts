import { describeWithServer } from '@lore/platform/testing';
import { call, mintJwt, type LoreUnderTest } from '@lore/gateway/e2e';
import { startDistributedTopology, type DistributedTopology } from './distributed-topology.fixture';

const JWT_SECRET = 'contention-e2e-secret';
const SUBJECT_PREFIX = `contention${process.pid}`;
/**
 * A tight gateway budget stands in for a loaded machine: a burst of writers to one memory
 * that retries its conflicts past the budget gets the gateway's 503 "did not answer".
 */
const REQUEST_TIMEOUT_MS = 1_500;
const WRITERS = 32;

/** Issue 16: a burst of replaces of one memory, over NATS, is answered within the gateway's budget. */
describeWithServer('NATS_URL', 'distributed topology: concurrent replaces of one memory', (natsUrl) => {
  let topology: DistributedTopology;
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };

  beforeAll(async () => {
    topology = await startDistributedTopology({ natsUrl, subjectPrefix: SUBJECT_PREFIX, env: { AUTH_JWT_SECRET: JWT_SECRET, REQUEST_TIMEOUT_MS: String(REQUEST_TIMEOUT_MS) } });
    Object.assign(lore, { url: topology.url });
  }, 90_000);

  afterAll(() => topology.stop());

  it(`answers each of ${WRITERS} concurrent replaces 200 or 409 within the budget, never 503, and loses no update`, async () => {
    const token = await mintJwt(JWT_SECRET, { sub: 'racer', workspace_id: 'contention-ws' });
    const created = await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: 'v0' } });
    expect(created.status).toBe(201);
    const id: string = created.body.memory_id;
    const started = Date.now();
    const replies = await Promise.all(Array.from({ length: WRITERS }, (_, i) => call(lore, 'POST', `/api/v1/memories/${id}/replace`, { token, body: { memory: `v${i + 1}` } })));
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s !== 200 && s !== 409)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 1_000);
    expect(statuses).toContain(200);
    // Every success replaced a distinct version: none was lost.
    const replaced = replies.filter((r) => r.status === 200).map((r) => r.body.old_memory.memory as string);
    expect(new Set(replaced).size).toBe(replaced.length);
    const conflicts = replies.filter((r) => r.status === 409);
    for (const reply of conflicts) expect(reply.body.detail).toMatch(/changed by another request at the same time/);
  }, 60_000);
});
