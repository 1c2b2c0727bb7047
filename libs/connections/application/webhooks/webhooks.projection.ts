import type { RecordedEvent } from '@lore/platform/kernel';
import { evolveDocument, recordKeyedPurge, type ProjectionContext } from '@lore/platform/projections';
import { upcastWebhookEvent } from '@lore/connections/domain';
import { WEBHOOKS, WEBHOOK_HEALTH, type WebhookDoc } from './webhook.read-models';
import { DELIVERY_PURGE } from './delivery-purges';

/**
 * Webhook endpoints for get, list and the sender; a deleted one's delivery log is purged after (delivery-purges.ts).
 * Part of the connections projection, so that one read model covers the context's streams and
 * read-your-writes waits for it alone.
 */
export async function projectWebhookEvent(recorded: RecordedEvent, context: ProjectionContext): Promise<void> {
  const event = upcastWebhookEvent(recorded);
  const id = event.data.webhookId;
  // Its delivery log goes afterwards, by the purge worker (delivery-purges.ts), not in this batch.
  // Recorded whatever the webhook's revision says: a batch half stored on an engine without
  // transactions is delivered again (and a purge recorded again removes nothing).
  if (event.type === 'connections.WebhookDeleted') recordKeyedPurge(context, DELIVERY_PURGE, { id, workspaceId: event.data.workspaceId }, recorded.position);
  await evolveDocument<WebhookDoc>(context, recorded, WEBHOOKS, id, (current) => {
    switch (event.type) {
      case 'connections.WebhookCreated': {
        const d = event.data;
        return {
          id,
          workspace_id: d.workspaceId,
          url: d.url,
          description: d.description,
          event_types: d.eventTypes,
          status: 'active',
          disabled_reason: null,
          disabled_at: null,
          created_by: d.createdBy,
          created_at: d.createdAt,
          updated_at: d.createdAt,
          active_since: d.createdAt,
          secret: d.secret,
        };
      }
      case 'connections.WebhookChanged': {
        const d = event.data;
        return (
          current && {
            ...current,
            ...(d.url === undefined ? {} : { url: d.url }),
            ...(d.eventTypes === undefined ? {} : { event_types: d.eventTypes }),
            ...(d.description === undefined ? {} : { description: d.description }),
            updated_at: d.at,
          }
        );
      }
      case 'connections.WebhookDisabled':
        return current && { ...current, status: 'disabled', disabled_reason: event.data.reason, disabled_at: event.data.at, updated_at: event.data.at };
      case 'connections.WebhookEnabled':
        if (current === null) return null;
        // A fresh start: the failure streak that disabled it is over.
        context.delete(WEBHOOK_HEALTH, id);
        return { ...current, status: 'active', disabled_reason: null, disabled_at: null, updated_at: event.data.at, active_since: event.data.at };
      case 'connections.WebhookDeleted':
        context.delete(WEBHOOK_HEALTH, id);
        return null;
    }
  });
}
