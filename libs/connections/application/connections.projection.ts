import type { RecordedEvent } from '@lore/platform/kernel';
import { evolveDocument, type Projection, type ProjectionContext } from '@lore/platform/projections';
import { CONNECT_SESSION_STREAM_PREFIX, CONNECTION_STREAM_PREFIX, CREDENTIAL_STREAM_PREFIX, WEBHOOK_STREAM_PREFIX, upcastConnectionEvent, upcastCredentialEvent } from '@lore/connections/domain';
import { CONNECTIONS, CREDENTIALS, type ConnectionDoc, type CredentialDoc } from './connection.read-models';
import { projectWebhookEvent } from './webhooks/webhooks.projection';
import { WEBHOOKS } from './webhooks/webhook.read-models';
import { CONNECT_SESSIONS, projectConnectSessionEvent } from './connect/connect-sessions.projection';

/**
 * Connections and what may be shown of their credentials, for get and list; webhook endpoints;
 * connect sessions (for the sweep of abandoned ones).
 * Each document is evolved by its own stream's events (`evolveDocument`: an event delivered
 * again never rolls a document back).
 */
export const connectionsProjection: Projection = {
  name: 'connections.connections.v1',
  streamPrefixes: [CONNECTION_STREAM_PREFIX, CREDENTIAL_STREAM_PREFIX, WEBHOOK_STREAM_PREFIX, CONNECT_SESSION_STREAM_PREFIX],
  collections: [CONNECTIONS, CREDENTIALS, WEBHOOKS, CONNECT_SESSIONS],
  async handle(recorded, context) {
    if (recorded.streamId.startsWith(WEBHOOK_STREAM_PREFIX)) return projectWebhookEvent(recorded, context);
    if (recorded.streamId.startsWith(CONNECT_SESSION_STREAM_PREFIX)) return projectConnectSessionEvent(recorded, context);
    if (recorded.streamId.startsWith(CREDENTIAL_STREAM_PREFIX)) return credential(recorded, context);
    return connection(recorded, context);
  },
};

function connection(recorded: RecordedEvent, context: ProjectionContext): Promise<void> {
  const event = upcastConnectionEvent(recorded);
  return evolveDocument<ConnectionDoc>(context, recorded, CONNECTIONS, event.data.connectionId, (current) => {
    switch (event.type) {
      case 'connections.ConnectionCreated': {
        const d = event.data;
        return {
          id: d.connectionId,
          workspace_id: d.workspaceId,
          user_id: d.userId,
          created_by: d.createdBy,
          integration: d.integration,
          integration_type: d.integrationType as ConnectionDoc['integration_type'],
          auth_method_id: d.authMethodId,
          label: d.label,
          config: d.config,
          credential_id: d.credentialId,
          status: 'active',
          status_reason: null,
          last_tested_at: null,
          created_at: d.createdAt,
          updated_at: d.createdAt,
        };
      }
      case 'connections.ConnectionUpdated': {
        const d = event.data;
        return (
          current && {
            ...current,
            ...(d.label === undefined ? {} : { label: d.label }),
            ...(d.config === undefined ? {} : { config: d.config }),
            ...(d.credentialId === undefined ? {} : { credential_id: d.credentialId }),
            ...(d.authMethodId === undefined ? {} : { auth_method_id: d.authMethodId }),
            updated_at: d.updatedAt,
          }
        );
      }
      case 'connections.ConnectionStatusChanged': {
        const d = event.data;
        return (
          current && {
            ...current,
            status: d.to,
            // A reason explains the status it came with; a later change (testing, active) clears it.
            status_reason: d.reason,
            ...(d.testedAt === null ? {} : { last_tested_at: d.testedAt }),
            updated_at: d.changedAt,
          }
        );
      }
      case 'connections.ConnectionDeleted':
        return null;
    }
  });
}

function credential(recorded: RecordedEvent, context: ProjectionContext): Promise<void> {
  const event = upcastCredentialEvent(recorded);
  return evolveDocument<CredentialDoc>(context, recorded, CREDENTIALS, event.data.credentialId, (current) => {
    switch (event.type) {
      case 'connections.CredentialStored': {
        const d = event.data;
        return {
          id: d.credentialId,
          workspace_id: d.workspaceId,
          user_id: d.userId,
          integration: d.integration,
          auth_method_id: d.authMethodId,
          fields_set: d.fieldsSet,
          hint: d.hint,
          version: 1,
          attached_to: [d.attachedTo],
          attached_at: d.storedAt,
          created_at: d.storedAt,
          updated_at: d.storedAt,
        };
      }
      case 'connections.CredentialRefreshed': {
        const d = event.data;
        return current && { ...current, fields_set: d.fieldsSet, hint: d.hint, version: d.version, updated_at: d.refreshedAt };
      }
      case 'connections.CredentialErased':
        return null;
      case 'connections.CredentialAttached':
      case 'connections.CredentialDetached': {
        if (current === null) return null;
        const others = current.attached_to.filter((id) => id !== event.data.connectionId);
        const attachedTo = event.type === 'connections.CredentialAttached' ? [...others, event.data.connectionId] : others;
        return { ...current, attached_to: attachedTo, attached_at: event.data.at };
      }
    }
  });
}
