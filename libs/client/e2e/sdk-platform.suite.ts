import { LoreApiError, LoreClient, toArray, verifyWebhook, WebhookVerificationError, type StreamedEvent } from '@lore/client';
import { eventually, freshUser, jwtFor, type LoreUnderTest } from './sdk-fixtures';
import { WebhookReceiver } from './webhook-receiver';

/** API keys, integrations and connections, webhooks with signature verification, the event stream, errors and retries, through the SDK. */
export function describeSdkPlatform(lore: () => LoreUnderTest): void {
  describe('SDK: keys, connections, webhooks, events, errors, retries', () => {
    let client: LoreClient;
    let user: string;
    let workspace: string;

    beforeAll(async () => {
      ({ client, user, workspace } = await freshUser(lore()));
    });

    it('creates an API key whose client is bounded by its permissions, lists, reads and revokes it', async () => {
      const created = await client.apiKeys.create({ label: 'sdk', permissions: ['memories:read', 'memories:write'] });
      const keyClient = new LoreClient({ baseUrl: lore().url, token: created.key });
      const memory = await keyClient.memories.create({ user_id: user, memory: 'made with a key' });
      expect(memory.memory.user_id).toBe(user);
      await expect(keyClient.collections.list()).rejects.toMatchObject({ status: 403 });
      expect(await client.apiKeys.get(created.id)).toMatchObject({ id: created.id, label: 'sdk', status: 'active' });
      const second = await client.apiKeys.create({ label: 'other' });
      expect((await toArray(client.apiKeys.iterate({ limit: 1 }))).map((k) => k.id).sort()).toEqual([created.id, second.id].sort());
      await client.apiKeys.revoke(created.id);
      await expect(keyClient.memories.list({ user_id: user })).rejects.toMatchObject({ status: 401 });
    });

    it('reads the integration catalog and provider models, and manages a connection', async () => {
      const catalog = await client.integrations.list();
      expect(catalog.map((entry) => entry.id)).toContain('custom');
      expect(await client.integrations.get('custom')).toMatchObject({ id: 'custom' });
      const models = await client.integrations.providerModels('openai', { model_type: 'embedding' });
      expect(models.length).toBeGreaterThan(0);

      const connection = await client.connections.create({ integration: 'custom', label: 'sdk', auth_method_id: 'none', config: { base_url: 'https://example.com' } });
      expect(connection).toMatchObject({ integration: 'custom', status: 'active' });
      expect(await client.connections.update(connection.id, { label: 'sdk renamed' })).toMatchObject({ label: 'sdk renamed' });
      expect(await client.connections.get(connection.id)).toMatchObject({ label: 'sdk renamed' });
      expect(await client.connections.test(connection.id)).toMatchObject({ status: 'active' });
      expect((await toArray(client.connections.iterate({ limit: 1 }))).map((c) => c.id)).toEqual([connection.id]);
      expect((await client.connections.byIntegrationType('custom')).map((c) => c.id)).toEqual([connection.id]);
      await client.connections.delete(connection.id);
      await expect(client.connections.get(connection.id)).rejects.toMatchObject({ status: 404 });
    });

    it("carries the API's detail in each of its shapes", async () => {
      const notFound = await client.memories.get('mem_missing').catch((error: unknown) => error);
      expect(notFound).toBeInstanceOf(LoreApiError);
      expect(notFound).toMatchObject({ status: 404, detail: expect.any(String), requestId: expect.any(String) });
      const invalid = (await client.memories.create({ memory: '' }).catch((error: unknown) => error)) as LoreApiError;
      expect(invalid.status).toBe(422);
      expect(invalid.validationIssues.map((issue) => issue.loc)).toContainEqual(['body', 'memory']);
      const refused = (await client.connections.create({ integration: 'custom', label: 'bad', auth_method_id: 'none', config: { base_url: 'not a url' } }).catch((error: unknown) => error)) as LoreApiError;
      expect(refused.status).toBe(400);
      expect(refused.detail).toMatchObject({ message: expect.any(String), errors: expect.arrayContaining([expect.stringContaining('config.base_url')]) });
    });

    it('waits out a 429 for as long as Retry-After says, then succeeds; without retries the 429 is an error', async () => {
      const limited = await freshUser(lore(), { workspaceId: 'sdk-rate-limited' });
      await limited.client.memories.list();
      const started = Date.now();
      // A POST is repeated after a 429 too: the request was refused before any work.
      await limited.client.memories.create({ memory: 'after waiting' });
      expect(Date.now() - started).toBeGreaterThanOrEqual(500);
      const impatient = new LoreClient({ baseUrl: lore().url, token: limited.token, workspaceId: 'sdk-rate-limited', retry: { maxRetries: 0 } });
      await impatient.memories.list().catch(() => undefined);
      const refused = (await impatient.memories.list().catch((error: unknown) => error)) as LoreApiError;
      expect(refused).toMatchObject({ status: 429, retryAfterSeconds: expect.any(Number) });
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    });

    it('resumes the event stream with Last-Event-ID after the connection drops: every event exactly once', async () => {
      // A workspace of its own: the stream starts from its oldest event.
      const { client, user, workspace } = await freshUser(lore());
      const before = await Promise.all([1, 2, 3].map((n) => client.memories.create({ memory: `event ${n}` })));
      const connections: Array<{ lastEventId: string | null; receivedBefore: number }> = [];
      const received: StreamedEvent[] = [];
      // The first connection is cut right after it delivered its first bytes of events.
      const cutting = new LoreClient({
        baseUrl: lore().url,
        token: await jwtFor(lore(), user, workspace),
        retry: { baseDelayMs: 20 },
        fetch: async (request) => {
          const response = await fetch(request);
          if (!request.url.includes('/api/v1/events')) return response;
          connections.push({ lastEventId: request.headers.get('last-event-id'), receivedBefore: received.length });
          return connections.length === 1 ? cutAfterFirstEvent(response) : response;
        },
      });
      const stop = new AbortController();
      const later: Promise<unknown>[] = [];
      // onOpen: once per connection opened, the first and the reconnection.
      const opened: number[] = [];
      for await (const item of cutting.events.stream({ types: ['memory.created'], after: '0', signal: stop.signal, onOpen: () => opened.push(received.length) })) {
        received.push(item);
        if (received.length === 3) later.push(client.memories.create({ memory: 'while streaming' }));
        if (received.length === 4) stop.abort();
      }
      await Promise.all(later);
      const ids = received.map((item) => (item.kind === 'event' ? item.event['memory_id'] : item.kind));
      expect(ids.slice(0, 3).sort()).toEqual(before.map((m) => m.memory_id).sort());
      expect(new Set(ids).size).toBe(4);
      expect(connections.length).toBeGreaterThanOrEqual(2);
      expect(connections[0]).toEqual({ lastEventId: '0', receivedBefore: 0 });
      // The reconnection resumed after the last event the client had, not from the start.
      const resumed = connections[1]!;
      expect(resumed.receivedBefore).toBeGreaterThan(0);
      const lastBeforeCut = received[resumed.receivedBefore - 1]!;
      expect(lastBeforeCut.kind === 'event' && lastBeforeCut.id).toBe(resumed.lastEventId);
      expect(opened).toEqual(connections.map((c) => c.receivedBefore));
    });

    it('manages a webhook and verifies its Standard Webhooks signatures; a tampered delivery fails', async () => {
      const receiver = await WebhookReceiver.start();
      try {
        const webhook = await client.webhooks.create({ url: receiver.url, event_types: ['memory.created'] });
        expect(webhook.secret).toMatch(/^whsec_/);
        const memory = await client.memories.create({ memory: 'deliver me' });
        const [delivery] = await eventually(() => Promise.resolve(receiver.received), (r) => r.length >= 1);
        const payload = await verifyWebhook(webhook.secret, delivery!.body, delivery!.headers as Record<string, string>);
        expect(payload).toMatchObject({ type: 'memory.created', data: { memory_id: memory.memory_id, workspace_id: workspace } });
        await expect(verifyWebhook(webhook.secret, delivery!.body.replace('memory.created', 'memory.deleted'), delivery!.headers as Record<string, string>)).rejects.toBeInstanceOf(WebhookVerificationError);
        await expect(verifyWebhook(webhook.secret, delivery!.body, delivery!.headers as Record<string, string>, { now: Date.now() + 3_600_000 })).rejects.toBeInstanceOf(WebhookVerificationError);

        const [logged] = await eventually(() => toArray(client.webhooks.deliveries(webhook.id)), (d) => d[0]?.status === 'delivered');
        await client.webhooks.redeliver(webhook.id, logged!.id);
        const again = await eventually(() => Promise.resolve(receiver.received), (r) => r.length >= 2);
        expect(again[1]!.headers['webhook-id']).toBe(delivery!.headers['webhook-id']);

        expect(await client.webhooks.update(webhook.id, { status: 'disabled' })).toMatchObject({ status: 'disabled' });
        expect(await client.webhooks.get(webhook.id)).toMatchObject({ status: 'disabled' });
        expect((await toArray(client.webhooks.iterate())).map((w) => w.id)).toEqual([webhook.id]);
        await client.webhooks.delete(webhook.id);
        await expect(client.webhooks.get(webhook.id)).rejects.toMatchObject({ status: 404 });
      } finally {
        await receiver.close();
      }
    });
  });
}

/** The response with its body cut by a network error right after the first complete event (what came after it is lost). */
function cutAfterFirstEvent(response: Response): Response {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { value, done } = await reader.read();
      if (done) return controller.close();
      text += decoder.decode(value, { stream: true });
      const firstEvent = /(^|\n)data:[^\n]*\n\n/.exec(text);
      if (firstEvent === null) return controller.enqueue(value);
      controller.enqueue(new TextEncoder().encode(text.slice(0, firstEvent.index + firstEvent[0].length)));
      await reader.cancel();
      controller.error(new TypeError('terminated: connection reset'));
    },
  });
  return new Response(body, { status: response.status, headers: response.headers });
}
