import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { systemClock } from '@lore/platform/kernel';
import { renderMetrics } from '@lore/platform/telemetry';
import type { Doc, DocumentCollection, DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { Keyring, SealedFields } from '@lore/platform/crypto';
import { createNodeEgress } from '@lore/platform/egress/node';
import { until } from '@lore/platform/testing';
import type { WebhookSettings } from '@lore/connections/contracts';
import { WebhookSender } from './webhook-sender.worker';
import { WEBHOOKS, WEBHOOK_DELIVERIES, type DeliveryDoc } from './webhook.read-models';

/** A receiver on loopback: `hang` never answers (the sender's timeout ends each attempt); else 204. */
async function receiver(hang: boolean): Promise<{ url: string; server: Server; open: () => number; peak: () => number; hits: string[] }> {
  let open = 0;
  let peak = 0;
  const hits: string[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    hits.push(String(request.headers['webhook-id']));
    open++;
    peak = Math.max(peak, open);
    response.on('close', () => open--);
    if (!hang) response.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, server, open: () => open, peak: () => peak, hits };
}

/** The store with every delivery query answered 30 ms late, from what it read at once: as a networked store's (MongoDB) can be. */
function answeringLate(store: DocumentStore): DocumentStore {
  return new Proxy(store, {
    get(target, property) {
      if (property !== 'collection') return Reflect.get(target, property, target) as unknown;
      return (name: string) => {
        const collection = target.collection<Doc>(name);
        if (name !== WEBHOOK_DELIVERIES) return collection;
        return new Proxy(collection, {
          get(inner, member) {
            if (member !== 'find') return (Reflect.get(inner, member, inner) as (...args: unknown[]) => unknown).bind(inner);
            return async (...args: Parameters<DocumentCollection<Doc>['find']>) => {
              const page = await inner.find(...args);
              await new Promise((resolve) => setTimeout(resolve, 30));
              return page;
            };
          },
        });
      };
    },
  });
}

const SETTINGS: WebhookSettings = { retryScheduleMs: [60_000], timeoutMs: 2_000, disableAfterMs: 86_400_000, disableMinFailures: 1_000, retentionMs: 86_400_000, pollMs: 100, perWorkspace: 50 };

describe('webhook sender: workspaces take turns', () => {
  let documents: DocumentStore;
  let sender: WebhookSender | undefined;
  const servers: Server[] = [];

  beforeEach(() => {
    documents = openSqliteDocumentStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await sender?.stop();
    sender = undefined;
    for (const server of servers.splice(0)) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    await documents.close();
  });

  it("delivers another workspace's event at once while one workspace's endpoint hangs on a backlog of 40, which holds at most 4 senders", async () => {
    const keyring = await Keyring.open(documents, Buffer.alloc(32, 7));
    const secrets = new SealedFields<{ secret: string }>(keyring, 'Webhook');
    const hanging = await receiver(true);
    const answering = await receiver(false);
    servers.push(hanging.server, answering.server);
    const endpoint = async (id: string, workspaceId: string, url: string) =>
      documents.collection(WEBHOOKS).upsert({ id, workspace_id: workspaceId, url, status: 'active', event_types: [], secret: secrets.seal(id, { secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' }, await secrets.newKey()), created_at: '2000-01-01T00:00:00.000Z' });
    await endpoint('wh-a', 'ws-a', hanging.url);
    await endpoint('wh-b', 'ws-b', answering.url);
    const delivery = (webhookId: string, workspaceId: string, n: number, at: string): DeliveryDoc => ({
      id: `${webhookId}-${n}`,
      webhook_id: webhookId,
      workspace_id: workspaceId,
      event_id: `evt-${webhookId}-${n}`,
      event_type: 'memory.created',
      status: 'pending',
      attempt_count: 0,
      round_attempts: 0,
      attempts: [],
      next_attempt_at: at,
      created_at: at,
      updated_at: at,
      event: { event_id: `evt-${webhookId}-${n}`, type: 'memory.created', occurred_at: at },
    });
    // A's backlog is older than B's one event: taken oldest first, B's waited for every one of A's (40 × 2 s over 8 senders).
    const older = new Date(Date.now() - 60_000).toISOString();
    for (let n = 0; n < 40; n++) await documents.collection(WEBHOOK_DELIVERIES).upsert(delivery('wh-a', 'ws-a', n, older));
    await documents.collection(WEBHOOK_DELIVERIES).upsert(delivery('wh-b', 'ws-b', 0, new Date().toISOString()));

    // Started after the deliveries were stored, as after a restart: it finds them itself.
    sender = new WebhookSender({ documents, egress: createNodeEgress({ allow: ['127.0.0.1'] }), clock: systemClock, log: { warn: () => undefined, error: () => undefined }, settings: SETTINGS, secrets, inFlight: new Set(), disable: async () => undefined });
    const started = Date.now();
    await sender.start();
    await until(() => documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).get('wh-b-0'), (d) => d?.status === 'delivered', 10_000);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(answering.hits).toEqual(['evt-wh-b-0']);
    // A's endpoint had its share of senders, no more.
    await until(async () => hanging.hits.length, (n) => n >= 4, 5_000);
    expect(hanging.peak()).toBe(4);
    expect((await renderMetrics()).body).toMatch(/^lore_webhook_attempts_total\{outcome="delivered"\} [1-9]/m);
  });

  it('attempts each delivery once when the store answers late: a delivery whose attempt ended during a query is not sent again', async () => {
    const keyring = await Keyring.open(documents, Buffer.alloc(32, 7));
    const secrets = new SealedFields<{ secret: string }>(keyring, 'Webhook');
    const answering = await receiver(false);
    servers.push(answering.server);
    await documents.collection(WEBHOOKS).upsert({ id: 'wh-a', workspace_id: 'ws-a', url: answering.url, status: 'active', event_types: [], secret: secrets.seal('wh-a', { secret: 'whsec_dGVzdHNlY3JldHRlc3RzZWNyZXQ=' }, await secrets.newKey()), created_at: '2000-01-01T00:00:00.000Z' });
    const at = new Date().toISOString();
    for (let n = 0; n < 3; n++) {
      const id = `evt-${n}`;
      await documents.collection(WEBHOOK_DELIVERIES).upsert({ id: `d-${n}`, webhook_id: 'wh-a', workspace_id: 'ws-a', event_id: id, event_type: 'memory.created', status: 'pending', attempt_count: 0, round_attempts: 0, attempts: [], next_attempt_at: at, created_at: at, updated_at: at, event: { event_id: id } });
    }
    sender = new WebhookSender({ documents: answeringLate(documents), egress: createNodeEgress({ allow: ['127.0.0.1'] }), clock: systemClock, log: { warn: () => undefined, error: () => undefined }, settings: SETTINGS, secrets, inFlight: new Set(), disable: async () => undefined });
    await sender.start();
    const deliveries = documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES);
    await until(async () => (await deliveries.find({ filter: { status: 'delivered' } })).items.length, (n) => n === 3, 10_000);
    await new Promise((resolve) => setTimeout(resolve, 300)); // a second attempt would come in the next pass
    expect([...answering.hits].sort()).toEqual(['evt-0', 'evt-1', 'evt-2']);
    expect((await deliveries.find({})).items.map((d) => d.attempt_count)).toEqual([1, 1, 1]);
  });
});
