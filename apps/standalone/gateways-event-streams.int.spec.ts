import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { startContext, type RunningContext } from '@lore/platform/testing';
import { keysContext } from '@lore/keys/application';
import { keysEdge } from '@lore/keys/http';
import { call, mintJwt, SseConnection, unique, type LoreUnderTest } from '@lore/gateway/e2e';
import { configureGateway, EVENT_ID_SECRET_FILE, loadEventIdSecret, type GatewayConfig } from '@lore/gateway';

const JWT_SECRET = 'event-streams-int-secret-0123456789';

/**
 * Several gateway processes' HTTP edges (each its own Fastify server, event-id secret and
 * DATA_DIR, as tools/distributed.ts gives them) over one keys service and its event feed:
 * SSE ids sealed by one gateway resume on another that shares the secret, and each gateway
 * caps the streams it holds open.
 */
describe('event streams served by several gateways', () => {
  let keys: RunningContext;
  let root: string;
  const servers: FastifyInstance[] = [];
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    keys = await startContext(keysContext);
    root = mkdtempSync(join(tmpdir(), 'lore-event-streams-'));
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await keys.stop();
    rmSync(root, { recursive: true, force: true });
  });

  /** A gateway as apps/gateway/main.ts starts one: its secret by loadEventIdSecret from its own DATA_DIR. */
  async function gateway(env: { secret?: string; masterKey?: string }, limits?: GatewayConfig['eventStreamLimits']): Promise<LoreUnderTest & { dataDir: string; generated: string[] }> {
    const dataDir = mkdtempSync(join(root, 'gateway-'));
    const generated: string[] = [];
    const eventIdSecret = loadEventIdSecret({ secret: env.secret, masterKey: env.masterKey, dataDir, onGenerated: (file) => generated.push(file) });
    const app = Fastify();
    configureGateway(app, {
      config: {
        auth: { jwtSecret: JWT_SECRET, jwksUrl: undefined, issuer: undefined, audience: undefined, allowNoExp: false, maxLifetimeSeconds: 86_400, adminClaim: 'roles', adminValue: 'admin' },
        trustProxy: false,
        maxBodyBytes: 1024 * 1024,
        requestTimeoutMs: 5_000,
        eventsHeartbeatMs: 15_000,
        ...(limits === undefined ? {} : { eventStreamLimits: limits }),
        // Off: these tests are about streams, not request rates.
        rateLimits: { caller: { perMinute: 0, burst: 0 }, workspace: { perMinute: 0, burst: 0 }, leaseMs: 0, overrides: new Map() },
      },
      transport: keys.transport,
      feed: keys.feed,
      eventIdSecret,
      edges: [{ name: 'keys', routes: keysEdge.routes({}, { log: { warn: () => undefined } }), events: keysEdge.events ?? [] }],
    });
    servers.push(app);
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url, jwtSecret: JWT_SECRET, dataDir, generated };
  }

  const open = async (lore: LoreUnderTest, options: { token: string; lastEventId?: string }, path = '/api/v1/events'): Promise<SseConnection> => {
    const stream = await SseConnection.open(lore, path, options);
    streams.push(stream);
    return stream;
  };
  const createKey = async (lore: LoreUnderTest, token: string): Promise<string> => {
    const reply = await call(lore, 'POST', '/api/v1/api-keys', { token, body: { label: unique('key') } });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const keyIds = (stream: SseConnection): string[] => stream.events().map((m) => (JSON.parse(m.data ?? 'null') as { key_id: string }).key_id);

  /** Opens a stream on `first` from the oldest event, then resumes on `second` after the first event's id. */
  async function resumeAcross(first: LoreUnderTest, second: LoreUnderTest): Promise<{ resumed: SseConnection; later: string }> {
    const token = await mintJwt(JWT_SECRET, { sub: unique('user'), workspace_id: unique('ws') });
    await createKey(first, token);
    const stream = await open(first, { token }, '/api/v1/events?after=0');
    const [seen] = await stream.waitForEvents(1);
    stream.close();
    const later = await createKey(first, token);
    return { resumed: await open(second, { token, lastEventId: seen?.id ?? '' }), later };
  }

  it('resumes on another gateway configured with the same LORE_EVENT_ID_SECRET, and on none with its own', async () => {
    const secret = randomBytes(32).toString('base64');
    const a = await gateway({ secret });
    // The secret wins over the master key: gateways may differ in LORE_MASTER_KEY (mid-rotation).
    const b = await gateway({ secret, masterKey: randomBytes(32).toString('base64') });
    const { resumed, later } = await resumeAcross(a, b);
    expect(resumed.status).toBe(200);
    await resumed.waitForEvents(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(keyIds(resumed)).toEqual([later]);

    // A gateway left to generate its own secret (its own DATA_DIR) opens none of them.
    const alone = await gateway({});
    expect(alone.generated).toEqual([join(alone.dataDir, EVENT_ID_SECRET_FILE)]);
    expect(existsSync(join(alone.dataDir, 'master.key'))).toBe(false);
    const foreign = await resumeAcross(a, alone);
    expect(foreign.resumed.status).toBe(422);
    for (const server of [a, b]) expect(existsSync(join(server.dataDir, EVENT_ID_SECRET_FILE))).toBe(false);
  });

  it('resumes on another gateway when both seal with LORE_MASTER_KEY (no LORE_EVENT_ID_SECRET)', async () => {
    const masterKey = randomBytes(32).toString('base64');
    const { resumed, later } = await resumeAcross(await gateway({ masterKey }), await gateway({ masterKey }));
    expect(resumed.status).toBe(200);
    await resumed.waitForEvents(1);
    expect(keyIds(resumed)).toEqual([later]);
  });

  it('caps open streams per caller and per workspace (429 naming the cap, Retry-After); a stream that ends frees its slot', async () => {
    const lore = await gateway({ secret: randomBytes(32).toString('hex') }, { perCaller: 2, perWorkspace: 3 });
    const workspace = unique('capped-ws');
    const [alice, bob, carol] = await Promise.all(['alice', 'bob', 'carol'].map((name) => mintJwt(JWT_SECRET, { sub: unique(name), workspace_id: workspace })));
    const as = (token: string | undefined): { token: string } => ({ token: token ?? '' });

    // Refused before a stream opens (a Last-Event-ID that does not open): no slot is taken.
    for (let i = 0; i < 3; i++) expect((await open(lore, { ...as(alice), lastEventId: 'not-an-id' })).status).toBe(422);
    const alices = [await open(lore, as(alice)), await open(lore, as(alice))];
    expect(alices.map((s) => s.status)).toEqual([200, 200]);
    const third = await open(lore, as(alice));
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
    expect(JSON.parse(third.body).detail).toMatch(/EVENTS_MAX_STREAMS_PER_CALLER of 2 .*this API key or user/);

    // Bob has slots of his own, until the workspace's are all taken.
    expect((await open(lore, as(bob))).status).toBe(200);
    const full = await open(lore, as(carol));
    expect(full.status).toBe(429);
    expect(JSON.parse(full.body).detail).toMatch(/EVENTS_MAX_STREAMS_PER_WORKSPACE of 3 .*this workspace/);
    // Another workspace (and the same user id there) is not affected.
    const elsewhere = await mintJwt(JWT_SECRET, { sub: 'alice', workspace_id: unique('other-ws') });
    expect((await open(lore, as(elsewhere))).status).toBe(200);

    // One of Alice's clients leaves: the gateway frees its slot (caller and workspace) once it sees the socket close.
    alices[0]?.close();
    const deadline = Date.now() + 5_000;
    let again = await open(lore, as(alice));
    while (again.status === 429 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      again = await open(lore, as(alice));
    }
    expect(again.status).toBe(200);
    expect((await open(lore, as(carol))).status).toBe(429);
  });
});
