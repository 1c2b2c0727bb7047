import { z } from 'zod';
import { defineMessage } from '@lore/platform/kernel';
import { CreatedWebhook, DELIVERY_STATUSES, WEBHOOK_STATUSES, WebhookDeliveryRecord, WebhookEventType, WebhookRecord } from './webhook.records';

const Scope = z.object({
  workspaceId: z.string().min(1).max(255),
  /** Who creates it (`created_by`): the user, or an API key's creator. */
  userId: z.string().min(1).max(255),
  actor: z.string().min(1).max(300),
});

/** An absolute http(s) URL without credentials or fragment; where it may point is the egress policy's call (at delivery). */
export const WebhookUrl = z
  .url({ protocol: /^https?$/, hostname: z.regexes.hostname })
  .max(2_000)
  .refine((value) => {
    // zod runs refinements after a failed check too; the check above already reported it.
    if (!URL.canParse(value)) return true;
    const url = new URL(value);
    return url.username === '' && url.password === '' && url.hash === '';
  }, 'must not carry credentials (user:password@) or a fragment');

export const webhookFields = {
  url: WebhookUrl,
  eventTypes: z.array(WebhookEventType).max(100),
  description: z.string().trim().max(500),
};

const WebhookId = z.string().min(1).max(100);
const ref = Scope.extend({ webhookId: WebhookId });

/** The webhook endpoints of a workspace and their delivery log (served by the connections service). */
export const webhookMessages = {
  create: defineMessage('webhooks.command.create', Scope.extend({ url: webhookFields.url, eventTypes: webhookFields.eventTypes.default([]), description: webhookFields.description.default('') }), CreatedWebhook),
  /** `status`: disable by hand, or enable again (an automatically disabled one too). */
  update: defineMessage(
    'webhooks.command.update',
    ref.extend({ url: webhookFields.url.optional(), eventTypes: webhookFields.eventTypes.optional(), description: webhookFields.description.optional(), status: z.enum(WEBHOOK_STATUSES).optional() }),
    WebhookRecord,
  ),
  delete: defineMessage('webhooks.command.delete', ref, z.object({ webhookId: z.string() })),
  get: defineMessage('webhooks.query.get', ref, WebhookRecord),
  list: defineMessage('webhooks.query.list', Scope.extend({ skip: z.number().int().min(0).default(0), limit: z.number().int().min(1).max(100).default(50) }), z.object({ items: z.array(WebhookRecord), total: z.number().int() })),
  deliveries: defineMessage(
    'webhooks.query.deliveries',
    ref.extend({ status: z.enum(DELIVERY_STATUSES).optional(), limit: z.number().int().min(1).max(100).default(50), cursor: z.string().max(2_000).optional() }),
    z.object({ items: z.array(WebhookDeliveryRecord), nextCursor: z.string().nullable() }),
  ),
  /** Sends a delivery again now (its attempts so far are kept); for a failed one, or a pending one not to wait for. */
  redeliver: defineMessage('webhooks.command.redeliver', ref.extend({ deliveryId: z.string().min(1).max(200) }), WebhookDeliveryRecord),
};
