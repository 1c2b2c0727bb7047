import { notFound } from '@lore/platform/kernel';
import { workspaceCollection, type DocumentStore } from '@lore/platform/documents/port';
import type { WebhookDeliveryRecord, WebhookRecord } from '@lore/connections/contracts';

export const WEBHOOKS = 'webhooks';
export const WEBHOOK_DELIVERIES = 'webhook_deliveries';
/** Per endpoint: since when it fails without a success (the sender's input to disabling it). */
export const WEBHOOK_HEALTH = 'webhook_health';

/** A webhook as lists read it, plus what the sender needs: the sealed secret (never shown) and the revision guard. */
export type WebhookDoc = WebhookRecord & {
  readonly secret: string;
  readonly revision: number;
  /**
   * When it was created or last enabled again: only events from then on are queued for it, so
   * a re-enabled endpoint gets none of the events from while it was disabled, even when the
   * dispatcher reaches them later (it waits while no webhook is active). Absent on documents
   * projected before it existed: their creation time stands in.
   */
  readonly active_since?: string;
  readonly [field: string]: unknown;
};

/** The delivery log: operational state of the sender, not events (a retry every few hours per event per endpoint). */
export type DeliveryDoc = WebhookDeliveryRecord & {
  readonly workspace_id: string;
  /** The integration event as it is sent (Standard Webhooks payload `data`). */
  readonly event: Record<string, unknown>;
  readonly [field: string]: unknown;
};

export interface HealthDoc {
  readonly id: string;
  readonly failing_since: string | null;
  readonly consecutive_failures: number;
  readonly last_error: string | null;
  readonly [field: string]: unknown;
}

export function webhookRecord(doc: WebhookDoc): WebhookRecord {
  const { secret: _secret, revision: _revision, active_since: _activeSince, ...record } = doc;
  return record;
}

export function deliveryRecord(doc: DeliveryDoc): WebhookDeliveryRecord {
  const { workspace_id: _workspace, event: _event, ...record } = doc;
  return record;
}

/** A webhook of the caller's workspace; another workspace's is as absent as a missing one (404). */
export async function workspaceWebhookDoc(documents: DocumentStore, workspaceId: string, webhookId: string): Promise<WebhookDoc> {
  const doc = await workspaceCollection<WebhookDoc>(documents, WEBHOOKS, workspaceId).get(webhookId);
  if (doc === null) throw notFound('Webhook');
  return doc;
}
