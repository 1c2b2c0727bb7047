import type { RecordedEvent } from '@lore/platform/kernel';
import type { ProjectionContext } from '@lore/platform/projections';
import { upcastWebhookEvent } from '@lore/connections/domain';
import { WEBHOOKS, WEBHOOK_DELIVERIES, WEBHOOK_HEALTH, type WebhookDoc } from './webhook.read-models';

/**
 * Webhook endpoints for get, list and the sender; a deleted one takes its delivery log along.
 * Part of the connections projection, so that one read model covers the context's streams and
 * read-your-writes waits for it alone.
 */
export async function projectWebhookEvent(recorded: RecordedEvent, context: ProjectionContext): Promise<void> {
  const event = upcastWebhookEvent(recorded);
  const id = event.data.webhookId;
  const current = await context.get<WebhookDoc>(WEBHOOKS, id);
  if (current !== null && current.revision >= recorded.revision) return;
  switch (event.type) {
    case 'connections.WebhookCreated': {
      const d = event.data;
      if (current !== null) return;
      context.upsert(WEBHOOKS, {
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
        secret: d.secret,
        revision: recorded.revision,
      } satisfies WebhookDoc);
      return;
    }
    case 'connections.WebhookChanged': {
      if (current === null) return;
      const d = event.data;
      context.upsert(WEBHOOKS, {
        ...current,
        ...(d.url === undefined ? {} : { url: d.url }),
        ...(d.eventTypes === undefined ? {} : { event_types: d.eventTypes }),
        ...(d.description === undefined ? {} : { description: d.description }),
        updated_at: d.at,
        revision: recorded.revision,
      });
      return;
    }
    case 'connections.WebhookDisabled':
      if (current === null) return;
      context.upsert(WEBHOOKS, { ...current, status: 'disabled', disabled_reason: event.data.reason, disabled_at: event.data.at, updated_at: event.data.at, revision: recorded.revision });
      return;
    case 'connections.WebhookEnabled':
      if (current === null) return;
      context.upsert(WEBHOOKS, { ...current, status: 'active', disabled_reason: null, disabled_at: null, updated_at: event.data.at, revision: recorded.revision });
      // A fresh start: the failure streak that disabled it is over.
      context.delete(WEBHOOK_HEALTH, id);
      return;
    case 'connections.WebhookDeleted':
      context.delete(WEBHOOKS, id);
      context.delete(WEBHOOK_HEALTH, id);
      context.deleteMany(WEBHOOK_DELIVERIES, { webhook_id: id });
      return;
  }
}
