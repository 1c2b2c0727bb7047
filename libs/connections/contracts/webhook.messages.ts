import { z } from 'zod';
import { defineMessage } from '@lore/platform/kernel';
import { CreatedWebhook, DELIVERY_STATUSES, WEBHOOK_STATUSES, WebhookDeliveryRecord, WebhookEventType, WebhookRecord } from './webhook.records';

const Scope = z.object({
  workspaceId: z.string().min(1).max(255),
  /** Who creates it (`created_by`): the user, or an API key's creator. */
  userId: z.string().min(1).max(255),
  actor: z.string().min(1).max(300),
});

/**
 * An absolute http(s) URL without credentials or fragment, read with the WHATWG URL parser (what
 * the delivery's fetch reads too): an IPv6 literal (`https://[2001:db8::1]/hook`) is a host like
 * any other, and a `@` after `#` or `?` is part of the fragment or query, not credentials. A
 * fragment is refused for what it is (never sent, and read as part of the host by lax parsers
 * downstream). Where the URL may point (private, loopback, link-local addresses) is the egress
 * policy's call, at delivery, after DNS.
 */
export const WebhookUrl = z
  .string()
  .max(2_000)
  .superRefine((value, ctx) => {
    const problem = webhookUrlProblem(value);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

function webhookUrlProblem(value: string): string | null {
  if (!URL.canParse(value)) return 'Invalid URL: an absolute http or https URL, e.g. https://example.com/hooks/lore';
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `Invalid URL: the scheme must be http or https, not ${url.protocol.slice(0, -1)}`;
  if (url.hostname === '') return 'Invalid URL: it names no host';
  if (url.username !== '' || url.password !== '') return 'must not carry credentials (user:password@)';
  // `href` ends in `#` for an empty fragment, which `hash` does not show.
  if (url.hash !== '' || url.href.endsWith('#')) return 'must not have a fragment (#…): it is never sent';
  return null;
}

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
  delete: defineMessage('webhooks.command.delete', ref, z.object({ webhookId: z.string(), erasing: z.boolean().optional() })),
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
export type WebhookMessages = typeof webhookMessages;
