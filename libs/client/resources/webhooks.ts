import { unwrap, type LoreHttp } from '../core/http';
import { cursorItems, offsetItems } from '../core/pagination';
import type { BodyOf, Filters, QueryOf, ReplyOf } from '../core/types';

export type Webhook = ReplyOf<'get_webhook'>;
export type WebhookDelivery = ReplyOf<'list_webhook_deliveries'>['deliveries'][number];

/** Endpoints Lore POSTs the workspace's events to, and their delivery logs (`/api/v1/webhooks`). */
export class Webhooks {
  constructor(private readonly http: LoreHttp) {}

  /** The answer holds the signing secret (`whsec_…`), shown this once: keep it for {@link verifyWebhook}. */
  create(body: BodyOf<'create_webhook'>): Promise<ReplyOf<'create_webhook'>> {
    return unwrap(this.http.api.POST('/api/v1/webhooks', { body }));
  }

  get(webhookId: string): Promise<Webhook> {
    return unwrap(this.http.api.GET('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }));
  }

  update(webhookId: string, body: BodyOf<'update_webhook'>): Promise<Webhook> {
    return unwrap(this.http.api.PATCH('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } }, body }));
  }

  delete(webhookId: string): Promise<ReplyOf<'delete_webhook'>> {
    return unwrap(this.http.api.DELETE('/api/v1/webhooks/{webhook_id}', { params: { path: { webhook_id: webhookId } } }));
  }

  list(query: QueryOf<'list_webhooks'> = {}): Promise<ReplyOf<'list_webhooks'>> {
    return unwrap(this.http.api.GET('/api/v1/webhooks', { params: { query } }));
  }

  iterate(filters: Filters<QueryOf<'list_webhooks'>> = {}): AsyncGenerator<Webhook, void, undefined> {
    return offsetItems(async (skip) => {
      const page = await this.list({ ...filters, skip });
      return { items: page.data, hasMore: page.has_more };
    });
  }

  /** One page of the delivery log, newest first; `cursor` from the previous page's `next_cursor`. */
  listDeliveries(webhookId: string, query: QueryOf<'list_webhook_deliveries'> = {}): Promise<ReplyOf<'list_webhook_deliveries'>> {
    return unwrap(this.http.api.GET('/api/v1/webhooks/{webhook_id}/deliveries', { params: { path: { webhook_id: webhookId }, query } }));
  }

  /** The delivery log, newest first, page after page by cursor. */
  deliveries(webhookId: string, filters: Filters<QueryOf<'list_webhook_deliveries'>> = {}): AsyncGenerator<WebhookDelivery, void, undefined> {
    return cursorItems(async (cursor) => {
      const page = await this.listDeliveries(webhookId, { ...filters, ...(cursor === undefined ? {} : { cursor }) });
      return { items: page.deliveries, nextCursor: page.next_cursor, hasMore: page.has_more };
    });
  }

  redeliver(webhookId: string, deliveryId: string): Promise<ReplyOf<'redeliver_webhook_delivery'>> {
    return unwrap(this.http.api.POST('/api/v1/webhooks/{webhook_id}/deliveries/{delivery_id}/redeliver', { params: { path: { webhook_id: webhookId, delivery_id: deliveryId } } }));
  }
}
