import type { RecordedEvent } from '@lore/platform/kernel';
import type { Projection, ProjectionContext } from '@lore/platform/projections';
import { CONNECTION_STREAM_PREFIX, CREDENTIAL_STREAM_PREFIX, WEBHOOK_STREAM_PREFIX, upcastConnectionEvent, upcastCredentialEvent, type ConnectionEvent } from '@lore/connections/domain';
import { CONNECTIONS, CREDENTIALS, type ConnectionDoc, type CredentialDoc } from './connection.read-models';
import { projectWebhookEvent } from './webhooks/webhooks.projection';
import { WEBHOOKS } from './webhooks/webhook.read-models';

/**
 * Connections and what may be shown of their credentials, for get and list; webhook endpoints. Each document
 * records the stream revision it reflects, so an event delivered again (at least once) never
 * rolls a document back.
 */
export const connectionsProjection: Projection = {
  name: 'connections.connections.v1',
  streamPrefixes: [CONNECTION_STREAM_PREFIX, CREDENTIAL_STREAM_PREFIX, WEBHOOK_STREAM_PREFIX],
  collections: [CONNECTIONS, CREDENTIALS, WEBHOOKS],
  async handle(recorded, context) {
    if (recorded.streamId.startsWith(WEBHOOK_STREAM_PREFIX)) return projectWebhookEvent(recorded, context);
    if (recorded.streamId.startsWith(CREDENTIAL_STREAM_PREFIX)) return credential(recorded, context);
    return connection(upcastConnectionEvent(recorded), recorded.revision, context);
  },
};

async function connection(event: ConnectionEvent, revision: number, context: ProjectionContext): Promise<void> {
  const current = await context.get<ConnectionDoc>(CONNECTIONS, event.data.connectionId);
  if (current !== null && current.revision >= revision) return;
  switch (event.type) {
    case 'connections.ConnectionCreated': {
      const d = event.data;
      if (current !== null) return;
      const doc: ConnectionDoc = {
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
        revision,
      };
      context.upsert(CONNECTIONS, doc);
      return;
    }
    case 'connections.ConnectionUpdated': {
      if (current === null) return;
      const d = event.data;
      context.upsert(CONNECTIONS, {
        ...current,
        ...(d.label === undefined ? {} : { label: d.label }),
        ...(d.config === undefined ? {} : { config: d.config }),
        ...(d.credentialId === undefined ? {} : { credential_id: d.credentialId }),
        ...(d.authMethodId === undefined ? {} : { auth_method_id: d.authMethodId }),
        updated_at: d.updatedAt,
        revision,
      });
      return;
    }
    case 'connections.ConnectionStatusChanged': {
      if (current === null) return;
      const d = event.data;
      context.upsert(CONNECTIONS, {
        ...current,
        status: d.to,
        // A reason explains the status it came with; a later change (testing, active) clears it.
        status_reason: d.reason,
        ...(d.testedAt === null ? {} : { last_tested_at: d.testedAt }),
        updated_at: d.changedAt,
        revision,
      });
      return;
    }
    case 'connections.ConnectionDeleted':
      context.delete(CONNECTIONS, event.data.connectionId);
      return;
  }
}

async function credential(recorded: RecordedEvent, context: ProjectionContext): Promise<void> {
  const event = upcastCredentialEvent(recorded);
  const revision = recorded.revision;
  const current = await context.get<CredentialDoc>(CREDENTIALS, event.data.credentialId);
  if (current !== null && current.revision >= revision) return;
  switch (event.type) {
    case 'connections.CredentialStored': {
      const d = event.data;
      if (current !== null) return;
      context.upsert(CREDENTIALS, {
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
        revision,
      } satisfies CredentialDoc);
      return;
    }
    case 'connections.CredentialRefreshed': {
      if (current === null) return;
      const d = event.data;
      context.upsert(CREDENTIALS, { ...current, fields_set: d.fieldsSet, hint: d.hint, version: d.version, updated_at: d.refreshedAt, revision });
      return;
    }
    case 'connections.CredentialErased':
      context.delete(CREDENTIALS, event.data.credentialId);
      return;
    case 'connections.CredentialAttached':
    case 'connections.CredentialDetached': {
      if (current === null) return;
      const others = current.attached_to.filter((id) => id !== event.data.connectionId);
      const attachedTo = event.type === 'connections.CredentialAttached' ? [...others, event.data.connectionId] : others;
      context.upsert(CREDENTIALS, { ...current, attached_to: attachedTo, attached_at: event.data.at, revision });
      return;
    }
  }
}
