import type { DocumentStore } from '@lore/platform/documents/port';
import type { ValidRequestOf } from '@lore/platform/kernel';

import type { webhookMessages, WebhookDeliveryRecord, WebhookRecord } from '@lore/connections/contracts';
import { WEBHOOKS, WEBHOOK_DELIVERIES, deliveryRecord, webhookRecord, workspaceWebhookDoc, type DeliveryDoc, type WebhookDoc } from './webhook.read-models';

type M = typeof webhookMessages;

export class WebhookQueries {
  constructor(private readonly documents: DocumentStore) {}

  async get(q: ValidRequestOf<M['get']>): Promise<WebhookRecord> {
    return webhookRecord(await workspaceWebhookDoc(this.documents, q.workspaceId, q.webhookId));
  }

  async list(q: ValidRequestOf<M['list']>): Promise<{ items: WebhookRecord[]; total: number }> {
    const webhooks = this.documents.collection<WebhookDoc>(WEBHOOKS);
    const filter = { workspace_id: q.workspaceId };
    const [page, total] = await Promise.all([webhooks.find({ filter, sort: [['created_at', 'desc']], skip: q.skip, limit: q.limit }), webhooks.count(filter)]);
    return { items: page.items.map(webhookRecord), total };
  }

  /** Newest first, by keyset cursor. */
  async deliveries(q: ValidRequestOf<M['deliveries']>): Promise<{ items: WebhookDeliveryRecord[]; nextCursor: string | null }> {
    await workspaceWebhookDoc(this.documents, q.workspaceId, q.webhookId);
    const page = await this.documents.collection<DeliveryDoc>(WEBHOOK_DELIVERIES).find({
      filter: { webhook_id: q.webhookId, ...(q.status === undefined ? {} : { status: q.status }) },
      sort: [['created_at', 'desc']],
      limit: q.limit,
      ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
    });
    return { items: page.items.map(deliveryRecord), nextCursor: page.nextCursor };
  }

}
