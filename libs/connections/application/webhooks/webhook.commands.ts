import { randomUUID } from 'node:crypto';
import { AppError, conflict, notFound, type Clock, type EventMetadata, type ReplyIn, type ValidRequestIn } from '@lore/platform/kernel';
import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentStore } from '@lore/platform/documents/port';
import { handleCommand, type ReadYourWrites } from '@lore/platform/cqrs';
import { keyedPurgePending, outlastsWait, stillPurging } from '@lore/platform/projections';
import { SealedFields, type Keyring } from '@lore/platform/crypto';
import type { WebhookMessages, WebhookSettings } from '@lore/connections/contracts';
import { upcastWebhookEvent, webhookDecider, webhookStreamId, type WebhookCommand } from '@lore/connections/domain';

import { newWebhookSecret } from './webhook-signature';
import { WEBHOOKS, WEBHOOK_DELIVERIES, deliveryRecord, webhookRecord, workspaceWebhookDoc, type DeliveryDoc, type WebhookDoc } from './webhook.read-models';
import { DELIVERY_PURGE } from './delivery-purges';

const webhookAggregate = { name: 'webhook', decider: webhookDecider, upcast: upcastWebhookEvent };
export const WEBHOOK_ERASURE = 'connections.webhook-erasure.v1';

export interface WebhookCommandDeps {
  readonly events: EventStore;
  readonly documents: DocumentStore;
  readonly keyring: Keyring;
  readonly clock: Clock;
  readonly readYourWrites: ReadYourWrites;
  readonly settings: WebhookSettings;
  /** Wakes the sender (a redelivery is due now). */
  /** Deliveries may be due: of the workspace named, or of any (an endpoint enabled again). */
  readonly wakeSender: (workspaceId?: string) => void;
  /** Deliveries being attempted in this process: a redelivery waits for none of them. */
  readonly inFlight: ReadonlySet<string>;
  /** Resolves once a deleted webhook's delivery log is purged (delivery-purges.ts); rejects (unavailable) after `timeoutMs`. */
  readonly deliveriesPurged: (webhookId: string, timeoutMs: number) => Promise<void>;
}

/** Creating, changing, disabling and deleting webhook endpoints; redelivering from their log. */
export class WebhookCommands {
  readonly secrets: SealedFields<{ secret: string }>;

  constructor(private readonly deps: WebhookCommandDeps) {
    this.secrets = new SealedFields<{ secret: string }>(deps.keyring, 'Webhook');
  }

  async create(c: ValidRequestIn<WebhookMessages, 'create'>): Promise<ReplyIn<WebhookMessages, 'create'>> {
    const existing = await this.deps.documents.collection(WEBHOOKS).count({ workspace_id: c.workspaceId });
    if (existing >= this.deps.settings.perWorkspace) throw conflict(`A workspace has at most ${this.deps.settings.perWorkspace} webhooks (WEBHOOKS_PER_WORKSPACE)`);
    const webhookId = randomUUID();
    const secret = newWebhookSecret();
    // The key is durable before anything sealed with it is appended.
    const sealed = this.secrets.seal(webhookId, { secret }, await this.secrets.newKey());
    const result = await handleCommand(
      this.deps.events,
      webhookAggregate,
      webhookStreamId(webhookId),
      { kind: 'create', webhook: { webhookId, workspaceId: c.workspaceId, createdBy: c.userId, url: c.url, eventTypes: c.eventTypes, description: c.description, secret: sealed }, at: this.now() },
      { newStream: true, metadata: metadataOf(c) },
    );
    await this.deps.readYourWrites.settle(result.position);
    return { ...webhookRecord(await this.read(c.workspaceId, webhookId)), secret };
  }

  async update(c: ValidRequestIn<WebhookMessages, 'update'>): Promise<ReplyIn<WebhookMessages, 'update'>> {
    const at = this.now();
    const commands: WebhookCommand[] = [{ kind: 'change', workspaceId: c.workspaceId, ...pick(c), at }];
    if (c.status === 'disabled') commands.push({ kind: 'disable', workspaceId: c.workspaceId, reason: `Disabled by ${c.actor}`, automatic: false, at });
    if (c.status === 'active') commands.push({ kind: 'enable', workspaceId: c.workspaceId, at });
    let position = null;
    for (const command of commands) {
      const result = await handleCommand(this.deps.events, webhookAggregate, webhookStreamId(c.webhookId), command, { metadata: metadataOf(c), retries: 3 });
      position = result.position ?? position;
    }
    await this.deps.readYourWrites.settle(position);
    if (c.status === 'active') this.deps.wakeSender();
    return webhookRecord(await this.read(c.workspaceId, c.webhookId));
  }

  /**
   * Answered once the signing secret's key is shredded and the stream deleted (the erasure
   * reactor) and the delivery log purged: 202 (`erasing`) when that outlasts the wait (a log of
   * tens of thousands). Repeated, 202 while the purge runs, 200 when it ends within the wait, then 404.
   */
  async delete(c: ValidRequestIn<WebhookMessages, 'delete'>): Promise<ReplyIn<WebhookMessages, 'delete'>> {
    const result = await handleCommand(this.deps.events, webhookAggregate, webhookStreamId(c.webhookId), { kind: 'delete', workspaceId: c.workspaceId, at: this.now() }, { metadata: metadataOf(c), retries: 3 }).catch(
      stillPurging(() => keyedPurgePending(this.deps.documents, DELIVERY_PURGE, { id: c.webhookId, workspaceId: c.workspaceId })),
    );
    if (result !== null) await this.deps.readYourWrites.settle(result.position);
    const erased = async (): Promise<void> => {
      if (result !== null) await this.deps.readYourWrites.settleReactor(WEBHOOK_ERASURE, result.position);
      await this.deps.readYourWrites.settleWithin((timeoutMs) => this.deps.deliveriesPurged(c.webhookId, timeoutMs));
    };
    const erasing = await outlastsWait(erased());
    return { webhookId: c.webhookId, ...(erasing ? { erasing } : {}) };
  }

  /** The sender's decision after sustained failure, recorded with its reason; a no-op if it is disabled already. */
  async disableAutomatically(webhook: WebhookDoc, reason: string): Promise<void> {
    await handleCommand(
      this.deps.events,
      webhookAggregate,
      webhookStreamId(webhook.id),
      { kind: 'disable', workspaceId: webhook.workspace_id, reason, automatic: true, at: this.now() },
      { metadata: { actor: 'system:webhook-sender', workspaceId: webhook.workspace_id }, retries: 3 },
    ).catch((error: unknown) => {
      // Deleted meanwhile: nothing left to disable.
      if (!(error instanceof AppError && error.code === 'not_found')) throw error;
    });
  }

  async redeliver(c: ValidRequestIn<WebhookMessages, 'redeliver'>): Promise<ReplyIn<WebhookMessages, 'redeliver'>> {
    const webhook = await this.read(c.workspaceId, c.webhookId);
    const deliveries = this.deps.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES);
    const delivery = await deliveries.get(c.deliveryId);
    if (delivery === null || delivery.webhook_id !== webhook.id) throw notFound('Delivery');
    if (webhook.status !== 'active') throw conflict('The webhook is disabled: enable it (PATCH status "active") before redelivering');
    if (this.deps.inFlight.has(delivery.id)) throw conflict('This delivery is being attempted right now; look again in a moment');
    const now = this.now();
    // A new round: the whole retry schedule again, the attempts so far kept in the log.
    const due: DeliveryDoc = { ...delivery, status: 'pending', round_attempts: 0, next_attempt_at: now, updated_at: now };
    await deliveries.upsert(due);
    this.deps.wakeSender(c.workspaceId);
    return deliveryRecord(due);
  }

  private read(workspaceId: string, webhookId: string): Promise<WebhookDoc> {
    return workspaceWebhookDoc(this.deps.documents, workspaceId, webhookId);
  }

  private now(): string {
    return this.deps.clock.now().toISOString();
  }
}

function pick(c: ValidRequestIn<WebhookMessages, 'update'>): { url?: string; eventTypes?: readonly string[]; description?: string } {
  return {
    ...(c.url === undefined ? {} : { url: c.url }),
    ...(c.eventTypes === undefined ? {} : { eventTypes: c.eventTypes }),
    ...(c.description === undefined ? {} : { description: c.description }),
  };
}

function metadataOf(c: { actor: string; workspaceId: string }): EventMetadata {
  return { actor: c.actor, workspaceId: c.workspaceId };
}
