import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Module, type INestMicroservice } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ClientProxyFactory, EventPattern, Payload, Transport as NestTransport, type ClientProxy, type MicroserviceOptions } from '@nestjs/microservices';
import { AckPolicy, connect } from 'nats';
import { lastValueFrom, timeout } from 'rxjs';
import { describeWithServer } from '@lore/platform/testing';
import { freePortRange, startDistributedTopology, type DistributedTopology } from './distributed-topology.fixture';
import { call, describeAdmin, describeAuditVerify, describeApiKeys, describeAuth, describeConversationContext, describeConversationMessages, describeConnections, describeConversations, describeErrors, describeEventStream, describeIntegrations, describeKnowledge, describeLargeContent, describeLimits, describeMemories, describeMemorySearch, describeMemoryExtraction, startMemoryModelStandIn, describeMetrics, describeRerank, describeRoles, describeWebhooks, mintJwt, startRerankStandIns, type RerankStandIns, WEBHOOK_TEST_ENV, LIMITS_TEST_ENV, EVENTS_TEST_ENV, type LoreUnderTest } from '@lore/gateway/e2e';
import { modelsDirForTests } from '@lore/platform/embeddings/contract';
import { eventStreamName } from '@lore/platform/transport/nats';
import { workspaceToken } from '@lore/platform/transport/port';
import { CONTEXTS } from '../contexts';

const JWT_SECRET = 'distributed-e2e-secret';
/** This run's own subject space, so parallel runs on one NATS never answer each other. */
const SUBJECT_PREFIX = `e2e${process.pid}`;

/** A downstream system written as a stock NestJS microservice, subscribed to Lore's integration events of every workspace (the last token). */
const downstream: unknown[] = [];
@Controller()
class DownstreamController {
  @EventPattern(`${SUBJECT_PREFIX}.events.memory.created.*`)
  memoryCreated(@Payload() event: unknown): void {
    downstream.push(event);
  }

  @EventPattern(`${SUBJECT_PREFIX}.events.connection.created.*`)
  connectionCreated(@Payload() event: unknown): void {
    downstream.push(event);
  }
}
@Module({ controllers: [DownstreamController] })
class DownstreamModule {}
const ROOT = join(__dirname, '..', '..');

/** The same black-box suites against the gateway and every context as separate processes over real NATS. */
describeWithServer('NATS_URL', 'distributed topology over NATS', (natsUrl) => {
  let topology: DistributedTopology;
  const lore: LoreUnderTest = { url: '', jwtSecret: JWT_SECRET };
  /** Each service's own `/metrics` (METRICS_PORT, then one port per service). */
  const serviceMetrics: string[] = [];

  let rerank: RerankStandIns;
  let chat: Awaited<ReturnType<typeof startMemoryModelStandIn>>;

  beforeAll(async () => {
    rerank = await startRerankStandIns();
    chat = await startMemoryModelStandIn();
    const metricsPort = await freePortRange(CONTEXTS.length);
    serviceMetrics.push(...CONTEXTS.map((_, i) => `http://127.0.0.1:${metricsPort + i}`));
    topology = await startDistributedTopology({
      natsUrl,
      // Its own subject space, so parallel runs on one NATS never answer each other.
      subjectPrefix: SUBJECT_PREFIX,
      env: {
        METRICS_PORT: String(metricsPort),
        AUTH_JWT_SECRET: JWT_SECRET,
        LORE_EGRESS_ALLOW: '127.0.0.1',
        EVENTS_HEARTBEAT_MS: '500',
        ...WEBHOOK_TEST_ENV, ...LIMITS_TEST_ENV, ...EVENTS_TEST_ENV,
        MODELS_DIR: modelsDirForTests(),
        ...rerank.env,
        ...chat.env,
      },
    });
    Object.assign(lore, { url: topology.url });
  }, 90_000);

  afterAll(async () => {
    await topology.stop();
    await rerank.close();
    await chat.server.close();
  });

  describeAuth(() => lore);
  describeErrors(() => lore);
  describeApiKeys(() => lore);
  describeMemories(() => lore);
  describeKnowledge(() => lore);
  describeLargeContent(() => lore);
  describeMemorySearch(() => lore);
  describeMemoryExtraction(() => lore, () => chat.server);
  describeConversations(() => lore);
  describeConversationMessages(() => lore);
  describeConversationContext(() => lore);
  describeRerank(() => lore, () => rerank);
  describeIntegrations(() => lore);
  describeConnections(() => lore);
  describeEventStream(() => lore);
  describeWebhooks(() => lore);
  describeRoles(() => lore);
  describeMetrics(() => lore, { services: () => serviceMetrics });
  describeLimits(() => lore);
  describeAdmin(() => lore);
  describeAuditVerify(() => lore, { dataDir: () => topology.dataDir });

  it('serves the web console at /console like the standalone gateway: the page with its CSP for every app path, its hashed assets', async () => {
    const page = await fetch(`${lore.url}/console/knowledge/some-collection`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await page.text();
    const script = /src="(\/console\/assets\/[^"]+\.js)"/.exec(html)?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${lore.url}${script ?? ''}`);
    expect(asset.status).toBe(200);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    // Read to the end: a body left unread (the entry script, ~470 kB) holds fetch's socket paused,
    // and once the gateway is stopped it stays open (CLOSE_WAIT) and keeps the jest worker alive.
    expect((await asset.text()).length).toBeGreaterThan(0);
  });

  it('the gateway, without LORE_MASTER_KEY, keeps only its event-id secret: no master key of its own', () => {
    expect(readdirSync(join(topology.dataDir, 'gateway'))).toEqual(['event-id.key']);
  });

  it('npm run parked reaches the running services over NATS (list and retry, every workspace)', () => {
    const env = { ...process.env, NATS_URL: natsUrl, NATS_SUBJECT_PREFIX: SUBJECT_PREFIX, DATA_DIR: mkdtempSync(join(tmpdir(), 'lore-parked-tool-')), LORE_MASTER_KEY: '', LOG_LEVEL: 'warn' };
    const run = (args: string[]) => spawnSync(process.execPath, ['dist/parked-events.js', ...args], { cwd: ROOT, env, encoding: 'utf8', timeout: 30_000 });
    const listed = run(['list']);
    expect({ status: listed.status, stderr: listed.stderr }).toEqual({ status: 0, stderr: '0 parked event(s)\n' });
    const retried = run(['retry', '--all']);
    expect({ status: retried.status, stdout: retried.stdout }).toEqual({ status: 0, stdout: '0 event(s) applied\n' });
    expect(run(['retry', 'no-such-record']).status).toBe(1);
  });

  it('serves a stock NestJS client (send) and reaches its @EventPattern handlers, with the service enforcing its own rules', async () => {
    const microservice: INestMicroservice = await NestFactory.createMicroservice<MicroserviceOptions>(DownstreamModule, {
      transport: NestTransport.NATS,
      options: { servers: [natsUrl] },
      logger: false,
    });
    await microservice.listen();
    const client: ClientProxy = ClientProxyFactory.create({ transport: NestTransport.NATS, options: { servers: [natsUrl] } });
    await client.connect();
    try {
      const token = await mintJwt(JWT_SECRET, { sub: 'nest-user', workspace_id: 'nest-ws' });
      const created = await call(lore, 'POST', '/api/v1/memories', { token, body: { memory: 'called from Nest' } });
      expect(created.status).toBe(201);
      const scope = { workspaceId: 'nest-ws', userId: 'nest-user', actor: 'service:nest-e2e' };
      const got = await lastValueFrom(client.send(`${SUBJECT_PREFIX}.memory.query.get`, { ...scope, memoryId: created.body.memory_id }).pipe(timeout(5_000)));
      expect(got).toEqual(created.body.memory);
      const refused = await lastValueFrom(client.send(`${SUBJECT_PREFIX}.memory.command.create`, { ...scope, memory: 'x'.repeat(20_000), memoryType: 'user' }).pipe(timeout(5_000))).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused).toMatchObject({ code: 'validation' });
      for (let i = 0; i < 100 && !downstream.some((e) => (e as { memory_id?: string }).memory_id === created.body.memory_id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(downstream).toContainEqual(expect.objectContaining({ type: 'memory.created', memory_id: created.body.memory_id, workspace_id: 'nest-ws' }));
      // A consumer that was not running then still gets it from the stream, by workspace.
      expect(await storedEvents(natsUrl, `${SUBJECT_PREFIX}.events.memory.created.${workspaceToken('nest-ws')}`)).toContainEqual(
        expect.objectContaining({ type: 'memory.created', memory_id: created.body.memory_id }),
      );

      const apiKey = 'sk-proj-downstreamMustNeverSeeThis0123456789';
      const connection = await call(lore, 'POST', '/api/v1/connections', { token, body: { integration: 'openai', label: 'for downstream', credentials: { api_key: apiKey } } });
      expect(connection.status).toBe(201);
      for (let i = 0; i < 100 && !downstream.some((e) => (e as { connection_id?: string }).connection_id === connection.body.id); i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(downstream).toContainEqual(expect.objectContaining({ type: 'connection.created', connection_id: connection.body.id, integration: 'openai', workspace_id: 'nest-ws', user_id: 'nest-user' }));
      expect(JSON.stringify(downstream)).not.toContain(apiKey);
    } finally {
      await client.close();
      await microservice.close();
    }
  });
});

/** Every stored event on a subject, read by a consumer created now (JetStream's `{ pattern, data }` envelope unwrapped). */
async function storedEvents(natsUrl: string, subject: string): Promise<unknown[]> {
  const nc = await connect({ servers: natsUrl });
  try {
    const stream = eventStreamName(SUBJECT_PREFIX);
    const { name } = await (await nc.jetstreamManager()).consumers.add(stream, { ack_policy: AckPolicy.None, filter_subject: subject });
    const events: unknown[] = [];
    for await (const m of await (await nc.jetstream().consumers.get(stream, name)).fetch({ max_messages: 100, expires: 1_000 })) {
      events.push((JSON.parse(m.string()) as { data: unknown }).data);
    }
    return events;
  } finally {
    await nc.close();
  }
}

