import { send } from '@lore/platform/transport/port';
import { DeletionGate, filesHolding, outcome, startContext, until, type RunningContext } from '@lore/platform/testing';
import { webhookMessages } from '@lore/connections/contracts';
import { connectionsContext } from '../connections.context';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from './webhook.read-models';

const a = { workspaceId: 'ws_deleting', userId: 'alice', actor: 'user:alice' };
const b = { workspaceId: 'ws_writing', userId: 'bob', actor: 'user:bob' };

/** Deletions of deliveries wait here when held. */
const gate = new DeletionGate(WEBHOOK_DELIVERIES);

/**
 * A deleted webhook's delivery log goes after the connections projection's batch that deleted
 * the webhook, not inside it (50,000 deliveries held that batch 1.2 s, and every workspace's
 * connection and webhook writes wait for it); the webhook's DELETE waits for it.
 */
describe("a deleted webhook's delivery log", () => {
  let running: RunningContext;
  beforeAll(async () => {
    running = await startContext(gate.around(connectionsContext), { READ_YOUR_WRITES_TIMEOUT_MS: '1000' });
  });
  afterAll(async () => {
    gate.release();
    await running.stop();
  });

  it('leaves with the webhook, while another workspace keeps writing; the DELETE follows its removal', async () => {
    const webhook = await send(running.transport, webhookMessages.create, { ...a, url: 'https://hooks.example.com/in', eventTypes: ['memory.created'] });
    // Its log, as the sender leaves it: deliveries made, each with the event as it was sent.
    const at = new Date().toISOString();
    const log: DeliveryDoc[] = Array.from({ length: 450 }, (_, i) => ({
      id: `dlv_${String(i).padStart(4, '0')}`,
      workspace_id: a.workspaceId,
      webhook_id: webhook.id,
      event_id: `evt_${i}`,
      event_type: 'memory.created',
      status: 'delivered',
      attempt_count: 1,
      attempts: [],
      next_attempt_at: null,
      created_at: at,
      updated_at: at,
      event: { type: 'memory.created', occurred_at: at, content: `Zorbulent tide table ${i}` },
    }));
    await gate.documents.write(log.map((doc) => ({ collection: WEBHOOK_DELIVERIES, op: 'upsert' as const, doc })));
    expect((await send(running.transport, webhookMessages.deliveries, { ...a, webhookId: webhook.id, limit: 100 })).items).toHaveLength(100);

    gate.hold([log.at(-1)!.id]);
    expect(await send(running.transport, webhookMessages.delete, { ...a, webhookId: webhook.id })).toEqual({ webhookId: webhook.id, erasing: true });
    // Gone from every read, though the store still holds its log.
    expect(await outcome(send(running.transport, webhookMessages.get, { ...a, webhookId: webhook.id }))).toBe('not_found');
    expect(await outcome(send(running.transport, webhookMessages.deliveries, { ...a, webhookId: webhook.id, limit: 100 }))).toBe('not_found');
    expect(filesHolding(running.dataDir, 'Zorbulent').length).toBeGreaterThan(0);
    // Another workspace's write is answered within the read-your-writes wait (1 s here): it waits for no removal.
    const others = await send(running.transport, webhookMessages.create, { ...b, url: 'https://hooks.example.org/in', eventTypes: [] });
    // And its own deletion does not queue behind this purge.
    expect(await send(running.transport, webhookMessages.delete, { ...b, webhookId: others.id })).toEqual({ webhookId: others.id });

    // Repeated, it is still under way, for its workspace only.
    expect(await send(running.transport, webhookMessages.delete, { ...a, webhookId: webhook.id })).toEqual({ webhookId: webhook.id, erasing: true });
    expect(await outcome(send(running.transport, webhookMessages.delete, { ...b, webhookId: webhook.id }))).toBe('not_found');

    gate.release();
    await until(() => outcome(send(running.transport, webhookMessages.delete, { ...a, webhookId: webhook.id })), (code) => code === 'not_found');
    expect(await gate.documents.collection(WEBHOOK_DELIVERIES).count({ webhook_id: webhook.id })).toBe(0);
    // The purge truncates the WAL after its last page.
    await until(async () => filesHolding(running.dataDir, 'Zorbulent'), (files) => files.length === 0, 10_000);
  });
});
