import type { RecordedEvent } from '@lore/platform/kernel';
import type { Transport } from '@lore/platform/transport/port';
import { integrationEventsPublisher, type Reactor } from '@lore/platform/projections';
import type { ConnectionIntegrationEvent } from '@lore/connections/contracts';
import { CONNECTION_STREAM_PREFIX, upcastConnectionEvent } from '@lore/connections/domain';

/** Publishes connection integration events for downstream subscribers, at least once (a reactor with a checkpoint). */
export function connectionEventsPublisher(transport: Transport): Reactor {
  return integrationEventsPublisher(transport, { name: 'connections.integration-events.v1', streamPrefix: CONNECTION_STREAM_PREFIX, integrationEvent });
}

function integrationEvent(recorded: RecordedEvent): ConnectionIntegrationEvent {
  const event = upcastConnectionEvent(recorded);
  const d = event.data;
  const base = { event_id: recorded.id, occurred_at: recorded.recordedAt, workspace_id: d.workspaceId, user_id: d.userId, connection_id: d.connectionId, integration: d.integration };
  switch (event.type) {
    case 'connections.ConnectionCreated':
      return { ...base, type: 'connection.created', status: null, credential_rotated: false };
    case 'connections.ConnectionUpdated':
      return { ...base, type: 'connection.updated', status: null, credential_rotated: event.data.credentialId !== undefined };
    case 'connections.ConnectionStatusChanged':
      return { ...base, type: 'connection.status_changed', status: { from: event.data.from, to: event.data.to, reason: event.data.reason }, credential_rotated: false };
    case 'connections.ConnectionDeleted':
      return { ...base, type: 'connection.deleted', status: null, credential_rotated: false };
  }
}
