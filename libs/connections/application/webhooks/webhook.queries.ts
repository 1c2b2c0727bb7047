import { workspaceCollection, type DocumentStore } from '@lore/platform/documents/port';
import type { ReplyIn, ValidRequestIn } from '@lore/platform/kernel';
import type { WebhookMessages } from '@lore/connections/contracts';
import { WEBHOOKS, WEBHOOK_DELIVERIES, deliveryRecord, webhookRecord, workspaceWebhookDoc, type DeliveryDoc, type WebhookDoc } from './webhook.read-models';

export class WebhookQueries {
  constructor(private readonly documents: DocumentStore) {}

  async get(q: ValidRequestIn<WebhookMessages, 'get'>): Promise<ReplyIn<WebhookMessages, 'get'>> {
    return webhookRecord(await workspaceWebhookDoc(this.documents, q.workspaceId, q.webhookId));
  }

  async list(q: ValidRequestIn<WebhookMessages, 'list'>): Promise<ReplyIn<WebhookMessages, 'list'>> {
    const webhooks = workspaceCollection<WebhookDoc>(this.documents, WEBHOOKS, q.workspaceId);
    const [page, total] = await Promise.all([webhooks.find({ sort: [['created_at', 'desc']], skip: q.skip, limit: q.limit }), webhooks.count()]);
    return { items: page.items.map(webhookRecord), total };
  }

  /** Newest first, by keyset cursor. */
  async deliveries(q: ValidRequestIn<WebhookMessages, 'deliveries'>): Promise<ReplyIn<WebhookMessages, 'deliveries'>> {
    await workspaceWebhookDoc(this.documents, q.workspaceId, q.webhookId);
    const page = await workspaceCollection<DeliveryDoc>(this.documents, WEBHOOK_DELIVERIES, q.workspaceId).find({
      filter: { webhook_id: q.webhookId, ...(q.status === undefined ? {} : { status: q.status }) },
      sort: [['created_at', 'desc']],
      limit: q.limit,
      ...(q.cursor === undefined ? {} : { cursor: q.cursor }),
    });
    return { items: page.items.map(deliveryRecord), nextCursor: page.nextCursor };
  }
}
