import { z } from 'zod';
import { AcceptedReply, actingOwner, offsetEnvelope, offsetPage, route, skipLimitQuery, type HttpRoute } from '@lore/platform/http';
import { CreatedWebhook, DELIVERY_STATUSES, WEBHOOK_STATUSES, WebhookDeliveryRecord, WebhookRecord, webhookFields, webhookMessages } from '@lore/connections/contracts';

const WebhookParams = z.object({ webhook_id: z.string().min(1).max(100) });
const DeliveryParams = WebhookParams.extend({ delivery_id: z.string().min(1).max(200) });
const fields = {
  url: webhookFields.url.describe('Where deliveries are POSTed (http or https). Private and loopback addresses are refused at delivery unless LORE_EGRESS_ALLOW permits them'),
  event_types: webhookFields.eventTypes.describe('Event types (memory.created) or whole contexts (memory.*); empty or omitted: every event'),
  description: webhookFields.description,
};


/**
 * Webhooks: the workspace's integration events POSTed to an endpoint, signed per Standard
 * Webhooks, retried for about a day, logged per delivery (README, "Webhooks").
 * Permissions: events:read to look, events:write to change. Webhooks are workspace-wide (like
 * the events); their messages carry the acting owner of no named user: `created_by` the caller.
 */
export function webhookRoutes(): HttpRoute[] {
  const common = { tags: ['Webhooks'], auth: true } as const;
  return [
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/webhooks',
      operationId: 'create_webhook',
      summary: 'Create a webhook endpoint (its signing secret is in this reply only)',
      permission: ['events', 'write'],
      body: z.object({ url: fields.url, event_types: fields.event_types.default([]), description: fields.description.default('') }),
      status: 201,
      response: CreatedWebhook,
      errors: [403, 409],
      handle: async ({ body, scope, send }) => send(webhookMessages.create, { ...actingOwner(scope), url: body.url, eventTypes: body.event_types, description: body.description }),
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/webhooks',
      operationId: 'list_webhooks',
      summary: "List the workspace's webhook endpoints",
      permission: ['events', 'read'],
      query: skipLimitQuery({ defaultLimit: 50, maxLimit: 100 }),
      status: 200,
      response: offsetEnvelope(WebhookRecord),
      errors: [403],
      handle: async ({ query, scope, send }) => {
        const page = await send(webhookMessages.list, { ...actingOwner(scope), skip: query.skip, limit: query.limit });
        return offsetPage({ items: page.items, total: page.total, skip: query.skip, limit: query.limit });
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/webhooks/:webhook_id',
      operationId: 'get_webhook',
      summary: 'Get a webhook endpoint',
      permission: ['events', 'read'],
      params: WebhookParams,
      status: 200,
      response: WebhookRecord,
      errors: [403, 404],
      handle: async ({ params, scope, send }) => send(webhookMessages.get, { ...actingOwner(scope), webhookId: params.webhook_id }),
    }),
    route({
      ...common,
      method: 'PATCH',
      path: '/api/v1/webhooks/:webhook_id',
      operationId: 'update_webhook',
      summary: 'Change a webhook endpoint; status "disabled" pauses it, "active" enables it again',
      permission: ['events', 'write'],
      params: WebhookParams,
      body: z.object({ url: fields.url.optional(), event_types: fields.event_types.optional(), description: fields.description.optional(), status: z.enum(WEBHOOK_STATUSES).optional() }),
      status: 200,
      response: WebhookRecord,
      errors: [403, 404, 409],
      handle: async ({ params, body, scope, send }) =>
        send(webhookMessages.update, {
          ...actingOwner(scope),
          webhookId: params.webhook_id,
          url: body.url,
          eventTypes: body.event_types,
          description: body.description,
          status: body.status,
        }),
    }),
    route({
      ...common,
      method: 'DELETE',
      path: '/api/v1/webhooks/:webhook_id',
      operationId: 'delete_webhook',
      summary: 'Delete a webhook endpoint, its delivery log and (crypto-shredded) its secret',
      permission: ['events', 'write'],
      params: WebhookParams,
      status: 200,
      response: z.object({ webhook_id: z.string(), message: z.string() }),
      accepted:
        "Deleted, and gone from every read at once, but its delivery log (the events as they were sent) was not yet removed from the files within the request's wait: a log of tens of thousands. It goes on by itself. " +
        'Repeat the DELETE to follow it: 202 while it runs, 200 when it finishes within that wait, 404 once nothing of it is left.',
      errors: [403, 404],
      handle: async ({ params, scope, send }) => {
        const { erasing } = await send(webhookMessages.delete, { ...actingOwner(scope), webhookId: params.webhook_id });
        if (erasing === true) return new AcceptedReply({ webhook_id: params.webhook_id, message: 'Webhook deleted; its delivery log is being removed' });
        return { webhook_id: params.webhook_id, message: 'Webhook deleted' };
      },
    }),
    route({
      ...common,
      method: 'GET',
      path: '/api/v1/webhooks/:webhook_id/deliveries',
      operationId: 'list_webhook_deliveries',
      summary: "A webhook endpoint's delivery log, newest first, with each attempt",
      permission: ['events', 'read'],
      params: WebhookParams,
      query: z.object({
        status: z.enum(DELIVERY_STATUSES).optional(),
        limit: z.coerce.number().int().min(1).max(100).default(50),
        cursor: z.string().max(2_000).optional().describe('next_cursor of the previous page'),
      }),
      status: 200,
      response: z.object({ deliveries: z.array(WebhookDeliveryRecord), next_cursor: z.string().nullable(), has_more: z.boolean() }),
      errors: [403, 404],
      handle: async ({ params, query, scope, send }) => {
        const page = await send(webhookMessages.deliveries, {
          ...actingOwner(scope),
          webhookId: params.webhook_id,
          limit: query.limit,
          status: query.status,
          cursor: query.cursor,
        });
        return { deliveries: page.items, next_cursor: page.nextCursor, has_more: page.nextCursor !== null };
      },
    }),
    route({
      ...common,
      method: 'POST',
      path: '/api/v1/webhooks/:webhook_id/deliveries/:delivery_id/redeliver',
      operationId: 'redeliver_webhook_delivery',
      summary: 'Send a delivery again now, with a fresh retry schedule',
      permission: ['events', 'write'],
      params: DeliveryParams,
      status: 200,
      response: WebhookDeliveryRecord,
      errors: [403, 404, 409],
      handle: async ({ params, scope, send }) => send(webhookMessages.redeliver, { ...actingOwner(scope), webhookId: params.webhook_id, deliveryId: params.delivery_id }),
    }),
  ];
}
