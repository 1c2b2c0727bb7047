import { Webhook } from 'standardwebhooks';
import { call, mintJwt, unique, type LoreUnderTest } from './e2e-client';
import { WebhookReceiver } from './webhook-receiver';

/** The environment the suite expects of the deployment: quick retries and an early automatic disable. */
export const WEBHOOK_TEST_ENV = {
  WEBHOOK_RETRY_SCHEDULE_MS: '200,400,800',
  WEBHOOK_POLL_MS: '100',
  WEBHOOK_TIMEOUT_MS: '3000',
  WEBHOOK_DISABLE_AFTER_MS: '1500',
  WEBHOOK_DISABLE_MIN_FAILURES: '6',
};

/** Webhooks over HTTP, against a receiver that verifies with the Standard Webhooks reference library. */
export function describeWebhooks(lore: () => LoreUnderTest): void {
  describe('webhooks', () => {
    let receiver: WebhookReceiver;
    beforeEach(async () => {
      receiver = await WebhookReceiver.start();
    });
    afterEach(() => receiver.close());

    const newUser = async (): Promise<{ token: string; workspace: string }> => {
      const workspace = unique('hooks-ws');
      return { workspace, token: await mintJwt(lore().jwtSecret, { sub: unique('hooks-user'), workspace_id: workspace }) };
    };
    const createWebhook = async (token: string, body: Record<string, unknown>): Promise<{ id: string; secret: string }> => {
      const reply = await call(lore(), 'POST', '/api/v1/webhooks', { token, body });
      expect(reply.status).toBe(201);
      return reply.body;
    };
    const createMemory = async (token: string): Promise<string> => (await call(lore(), 'POST', '/api/v1/memories', { token, body: { memory: `hook ${unique('m')}` } })).body.memory_id;
    const deliveries = async (token: string, webhookId: string): Promise<any[]> => {
      const reply = await call(lore(), 'GET', `/api/v1/webhooks/${webhookId}/deliveries`, { token });
      expect(reply.status).toBe(200);
      return reply.body.deliveries;
    };
    const eventually = async <T>(probe: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const value = await probe();
        if (accept(value)) return value;
        if (Date.now() > deadline) throw new Error(`not reached: ${JSON.stringify(value)}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    };

    it('delivers a signed event the reference library verifies, shows the secret once, and logs the delivery', async () => {
      const alice = await newUser();
      const webhook = await createWebhook(alice.token, { url: receiver.url(), event_types: ['memory.created'], description: 'all new memories' });
      expect(webhook.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
      const shown = await call(lore(), 'GET', `/api/v1/webhooks/${webhook.id}`, { token: alice.token });
      expect(shown.body).toMatchObject({ id: webhook.id, url: receiver.url(), status: 'active', event_types: ['memory.created'] });
      expect(JSON.stringify(shown.body)).not.toContain(webhook.secret.slice(6));
      expect((await call(lore(), 'GET', '/api/v1/webhooks', { token: alice.token })).body.data.map((w: { id: string }) => w.id)).toEqual([webhook.id]);

      const memoryId = await createMemory(alice.token);
      const [request] = await receiver.waitFor(1);
      const verified = new Webhook(webhook.secret).verify(request!.body, request!.headers as Record<string, string>) as { type: string; data: Record<string, unknown> };
      expect(verified).toMatchObject({ type: 'memory.created', data: { memory_id: memoryId, workspace_id: alice.workspace } });
      expect(request!.headers['webhook-id']).toBe(verified.data['event_id']);

      const log = await eventually(() => deliveries(alice.token, webhook.id), (d) => d[0]?.status === 'delivered');
      expect(log).toHaveLength(1);
      expect(log[0]).toMatchObject({ event_type: 'memory.created', event_id: verified.data['event_id'], attempt_count: 1, attempts: [{ status_code: 200, error: null }] });
    });

    it('sends only the subscribed types, and nothing from before the endpoint existed', async () => {
      const alice = await newUser();
      const before = await createMemory(alice.token);
      await createWebhook(alice.token, { url: receiver.url(), event_types: ['memory.deleted'] });
      const id = await createMemory(alice.token);
      expect((await call(lore(), 'DELETE', `/api/v1/memories/${id}`, { token: alice.token })).status).toBe(200);
      await receiver.waitFor(1);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received.map((r) => JSON.parse(r.body).type)).toEqual(['memory.deleted']);
      expect(receiver.received.map((r) => JSON.parse(r.body).data.memory_id)).not.toContain(before);
    });

    it('retries a failing endpoint with the same webhook-id until it answers 2xx', async () => {
      const alice = await newUser();
      receiver.respond = (n) => (n <= 2 ? 503 : 200);
      const webhook = await createWebhook(alice.token, { url: receiver.url() });
      await createMemory(alice.token);
      const requests = await receiver.waitFor(3);
      expect(new Set(requests.map((r) => r.headers['webhook-id'])).size).toBe(1);
      for (const request of requests) expect(() => new Webhook(webhook.secret).verify(request.body, request.headers as Record<string, string>)).not.toThrow();
      const [delivery] = await eventually(() => deliveries(alice.token, webhook.id), (d) => d[0]?.status === 'delivered');
      expect(delivery.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([503, 503, 200]);
      expect(delivery.attempts[0].error).toMatch(/503/);
    });

    it('marks a delivery failed after the schedule, and redelivers it on request', async () => {
      const alice = await newUser();
      receiver.respond = () => 500;
      const webhook = await createWebhook(alice.token, { url: receiver.url() });
      await createMemory(alice.token);
      const [failed] = await eventually(() => deliveries(alice.token, webhook.id), (d) => d[0]?.status === 'failed');
      expect(failed.attempt_count).toBe(4); // the first attempt and three retries (WEBHOOK_RETRY_SCHEDULE_MS)
      expect(failed.next_attempt_at).toBeNull();

      receiver.respond = () => 204;
      const again = await call(lore(), 'POST', `/api/v1/webhooks/${webhook.id}/deliveries/${failed.id}/redeliver`, { token: alice.token });
      expect(again.status).toBe(200);
      const [delivered] = await eventually(() => deliveries(alice.token, webhook.id), (d) => d[0]?.status === 'delivered');
      expect(delivered.attempt_count).toBe(5);
      expect(receiver.received.at(-1)?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);
      expect((await call(lore(), 'GET', `/api/v1/webhooks/${webhook.id}/deliveries?status=failed`, { token: alice.token })).body.deliveries).toEqual([]);
    });

    it('disables an endpoint after sustained failure with the reason, and enables it again on request', async () => {
      const alice = await newUser();
      receiver.respond = () => 500;
      const webhook = await createWebhook(alice.token, { url: receiver.url() });
      for (let i = 0; i < 3; i++) {
        await createMemory(alice.token);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
      const disabled = await eventually(() => call(lore(), 'GET', `/api/v1/webhooks/${webhook.id}`, { token: alice.token }), (r) => r.body.status === 'disabled', 15_000);
      expect(disabled.body.disabled_reason).toMatch(/Disabled automatically: \d+ deliveries in a row failed since .*HTTP 500/);
      expect(disabled.body.disabled_at).toEqual(expect.any(String));
      const enabled = await call(lore(), 'PATCH', `/api/v1/webhooks/${webhook.id}`, { token: alice.token, body: { status: 'active' } });
      expect(enabled.body).toMatchObject({ status: 'active', disabled_reason: null });
    });

    it('refuses to deliver to an address the egress policy blocks, and says why in the log', async () => {
      const alice = await newUser();
      const webhook = await createWebhook(alice.token, { url: 'http://169.254.169.254/latest/meta-data' });
      await createMemory(alice.token);
      const [delivery] = await eventually(() => deliveries(alice.token, webhook.id), (d) => (d[0]?.attempts.length ?? 0) > 0);
      expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: expect.stringMatching(/169\.254\.169\.254/) });
    });

    it('keeps workspaces apart, checks events permissions, validates input, and deletes for good', async () => {
      const alice = await newUser();
      const mallory = await newUser();
      const webhook = await createWebhook(alice.token, { url: receiver.url(), event_types: ['memory.*'] });
      for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['GET', '/deliveries']] as const) {
        const reply = await call(lore(), method, `/api/v1/webhooks/${webhook.id}${path}`, { token: mallory.token, ...(method === 'PATCH' ? { body: { description: 'mine' } } : {}) });
        expect({ method, path, status: reply.status }).toEqual({ method, path, status: 404 });
      }
      expect((await call(lore(), 'GET', '/api/v1/webhooks', { token: mallory.token })).body.data).toEqual([]);
      const reader = (await call(lore(), 'POST', '/api/v1/api-keys', { token: alice.token, body: { label: 'reader', permissions: ['events:read'] } })).body.key;
      expect((await call(lore(), 'GET', `/api/v1/webhooks/${webhook.id}`, { token: reader })).status).toBe(200);
      expect((await call(lore(), 'POST', '/api/v1/webhooks', { token: reader, body: { url: receiver.url() } })).status).toBe(403);

      for (const body of [{ url: 'ftp://example.com/x' }, { url: 'https://user:pw@example.com/x' }, { url: 'not a url' }, { url: receiver.url(), event_types: ['memory'] }]) {
        expect({ body, status: (await call(lore(), 'POST', '/api/v1/webhooks', { token: alice.token, body })).status }).toEqual({ body, status: 422 });
      }
      // WHATWG URL semantics: `#@…` is a fragment (refused as such), not credentials; an IPv6 literal is a host.
      const fragment = await call(lore(), 'POST', '/api/v1/webhooks', { token: alice.token, body: { url: 'https://example.com/hook#@evil.example' } });
      expect(fragment.status).toBe(422);
      expect(fragment.body.detail[0]).toMatchObject({ loc: ['body', 'url'], msg: expect.stringMatching(/fragment/) });
      expect(fragment.body.detail[0].msg).not.toMatch(/credentials/);
      const v6 = await newUser();
      const ipv6 = await call(lore(), 'POST', '/api/v1/webhooks', { token: v6.token, body: { url: 'https://[2001:db8::1]/hook' } });
      expect(ipv6.status).toBe(201);
      expect(ipv6.body.url).toBe('https://[2001:db8::1]/hook');
      const withQuery = await call(lore(), 'PATCH', `/api/v1/webhooks/${ipv6.body.id}`, { token: v6.token, body: { url: 'http://[2606:4700:4700::1111]:8080/x?next=@y' } });
      expect(withQuery.status).toBe(200);

      expect((await call(lore(), 'DELETE', `/api/v1/webhooks/${webhook.id}`, { token: alice.token })).status).toBe(200);
      expect((await call(lore(), 'GET', `/api/v1/webhooks/${webhook.id}`, { token: alice.token })).status).toBe(404);
      expect((await call(lore(), 'GET', `/api/v1/webhooks/${webhook.id}/deliveries`, { token: alice.token })).status).toBe(404);
      await createMemory(alice.token);
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(receiver.received).toEqual([]);
    });
  });
}
