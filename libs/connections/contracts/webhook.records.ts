import { z } from 'zod';

export const WEBHOOK_STATUSES = ['active', 'disabled'] as const;
export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

/** `memory.created`, or `memory.*` for every type of a context. */
export const WebhookEventType = z
  .string()
  .regex(/^[a-z][a-z0-9_]*\.([a-z][a-z0-9_]*|\*)$/, 'must be an event type (<context>.<type>, e.g. memory.created) or <context>.*');

/**
 * Where integration events are POSTed. Workspace-wide like the events themselves; `url` is
 * shown (the signing secret never is, after creation).
 */
export const WebhookRecord = z.object({
  id: z.string(),
  workspace_id: z.string(),
  url: z.string(),
  description: z.string(),
  event_types: z.array(z.string()).describe('Empty: every event type'),
  status: z.enum(WEBHOOK_STATUSES),
  disabled_reason: z.string().nullable().describe('Why it was disabled: by a user, or automatically after sustained failure'),
  disabled_at: z.string().nullable(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookRecord = z.infer<typeof WebhookRecord>;

export const CreatedWebhook = WebhookRecord.extend({
  secret: z.string().describe('The signing secret (whsec_…, Standard Webhooks): shown only in this reply'),
});

export const DeliveryAttempt = z.object({
  at: z.string(),
  status_code: z.number().int().nullable().describe('The HTTP status the endpoint answered; null when no response came'),
  duration_ms: z.number().int(),
  error: z.string().nullable().describe('Why the attempt failed, when it did'),
});

export const WebhookDeliveryRecord = z.object({
  id: z.string(),
  webhook_id: z.string(),
  event_id: z.string().describe('Also the `webhook-id` header: the same on every attempt, for receivers to de-duplicate'),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempt_count: z.number().int(),
  attempts: z.array(DeliveryAttempt).describe('The latest attempts, oldest first (at most 20)'),
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookDeliveryRecord = z.infer<typeof WebhookDeliveryRecord>;
