import type { RecordedEvent } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { integrationEventsPublisher, type Reactor } from '@lore/platform/projections';
import type { ApiKeyIntegrationEvent } from '@lore/keys/contracts';
import { API_KEY_STREAM_PREFIX, upcastApiKeyEvent } from '@lore/keys/domain';

/** At-least-once integration events (`<prefix>.events.api_key.<type>.<workspace token>`), resumed from a checkpoint after a restart. */
export function apiKeyEventsPublisher(transport: Transport): Reactor {
  return integrationEventsPublisher(transport, { name: 'keys.integration-events.v1', streamPrefix: API_KEY_STREAM_PREFIX, integrationEvent });
}

function integrationEvent(recorded: RecordedEvent): ApiKeyIntegrationEvent | null {
  const event = upcastApiKeyEvent(recorded);
  // The handler's note that a cascade is complete: each key it revoked was announced on its own.
  if (event.type === 'keys.ApiKeyRevocationCascaded') return null;
  return {
    type: event.type === 'keys.ApiKeyCreated' ? 'api_key.created' : 'api_key.revoked',
    event_id: recorded.id,
    occurred_at: recorded.recordedAt,
    workspace_id: event.data.workspaceId,
    key_id: event.data.keyId,
  };
}
