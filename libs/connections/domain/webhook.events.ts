import { z } from 'zod';

/**
 * A webhook endpoint: its own aggregate, one stream per endpoint. `secret` is the sealed
 * signing secret (`<data key id>:<AES-256-GCM>`, bound to the webhook id); its key is shredded
 * when the endpoint is deleted. The URL is kept clear (it is shown to the workspace).
 */
export const WebhookCreated = z.object({
  type: z.literal('connections.WebhookCreated'),
  data: z.object({
    webhookId: z.string(),
    workspaceId: z.string(),
    createdBy: z.string(),
    url: z.string(),
    eventTypes: z.array(z.string()),
    description: z.string(),
    secret: z.string(),
    createdAt: z.string(),
  }),
});

export const WebhookChanged = z.object({
  type: z.literal('connections.WebhookChanged'),
  data: z.object({
    webhookId: z.string(),
    url: z.string().optional(),
    eventTypes: z.array(z.string()).optional(),
    description: z.string().optional(),
    at: z.string(),
  }),
});

/** By a user, or by the sender after sustained failure: `reason` says which and why. */
export const WebhookDisabled = z.object({
  type: z.literal('connections.WebhookDisabled'),
  data: z.object({ webhookId: z.string(), reason: z.string(), automatic: z.boolean(), at: z.string() }),
});

export const WebhookEnabled = z.object({
  type: z.literal('connections.WebhookEnabled'),
  data: z.object({ webhookId: z.string(), at: z.string() }),
});

export const WebhookDeleted = z.object({
  type: z.literal('connections.WebhookDeleted'),
  data: z.object({ webhookId: z.string(), workspaceId: z.string(), at: z.string() }),
});

export const WebhookEvent = z.discriminatedUnion('type', [WebhookCreated, WebhookChanged, WebhookDisabled, WebhookEnabled, WebhookDeleted]);
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const WEBHOOK_STREAM_PREFIX = 'webhook-';
export const webhookStreamId = (webhookId: string): string => `${WEBHOOK_STREAM_PREFIX}${webhookId}`;
