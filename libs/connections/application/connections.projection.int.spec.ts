import type { RecordedEvent } from '@lore/platform/kernel';
import { projectionSpec, recordedEvent } from '@lore/platform/testing';
import { connectionsProjection } from './connections.projection';

/** Connections and their credential summaries, from both kinds of streams; delivered at least once. */
const spec = projectionSpec(connectionsProjection);
const at = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;
const owner = { workspaceId: 'ws', userId: 'alice' };
const event = (stream: string, revision: number, type: string, data: unknown): RecordedEvent => ({ ...recordedEvent(stream, type, data, at(revision)), id: `${stream}-${revision}`, revision });
const conn = (revision: number, type: string, data: Record<string, unknown>) => event('connection-conn_1', revision, `connections.${type}`, { connectionId: 'conn_1', ...owner, integration: 'openai', ...data });
const cred = (revision: number, type: string, data: Record<string, unknown>) => event('credential-cred_1', revision, `connections.${type}`, { credentialId: 'cred_1', ...data });

const created = conn(0, 'ConnectionCreated', { createdBy: 'user:alice', integration: 'openai', integrationType: 'model', authMethodId: 'api_key', label: 'OpenAI', config: {}, credentialId: 'cred_1', createdAt: at(0) });
const testing = conn(1, 'ConnectionStatusChanged', { from: 'active', to: 'testing', reason: null, testedAt: null, changedAt: at(1) });
const failed = conn(2, 'ConnectionStatusChanged', { from: 'testing', to: 'error', reason: 'HTTP 401', testedAt: at(2), changedAt: at(2) });
const renamed = conn(3, 'ConnectionUpdated', { label: 'Renamed', config: { base_url: 'https://x' }, updatedAt: at(3) });
const deleted = conn(4, 'ConnectionDeleted', { credentialId: 'cred_1', deletedAt: at(4) });
const stored = cred(0, 'CredentialStored', { ...owner, integration: 'openai', authMethodId: 'api_key', secret: 'dk_1:sealed', fieldsSet: ['api_key'], hint: '…WXYZ', attachedTo: 'conn_1', storedAt: at(0) });
const attached = cred(1, 'CredentialAttached', { connectionId: 'conn_2', at: at(1) });
const refreshed = cred(2, 'CredentialRefreshed', { secret: 'dk_1:sealed2', fieldsSet: ['access_token'], hint: null, version: 2, refreshedAt: at(2) });
const erased = cred(3, 'CredentialErased', { ...owner, erasedAt: at(3) });

describe('connections projection', () => {
  it('follows a connection through a test and an update, with the reason and the test time', async () => {
    await spec.given([created, testing, failed, renamed]).thenDocuments({
      connections: [expect.objectContaining({ id: 'conn_1', status: 'error', status_reason: 'HTTP 401', last_tested_at: at(2), label: 'Renamed', config: { base_url: 'https://x' }, updated_at: at(3), revision: 3 })],
    });
  });

  it('never rolls a connection back when an older event comes again', async () => {
    await spec.given([created, testing, failed, renamed]).whenRedelivered([testing, created]).thenUnchanged();
    await spec.given([created, testing, failed]).whenReplayed({ oneBatch: true }).thenUnchanged();
  });

  it('drops a deleted connection, and keeps no secret of its credential, only what may be shown', async () => {
    await spec.given([created, deleted]).thenDocuments({});
    const documents = await spec.given([stored, attached, refreshed]).thenDocuments({
      credentials: [expect.objectContaining({ id: 'cred_1', fields_set: ['access_token'], hint: null, version: 2, attached_to: ['conn_1', 'conn_2'] })],
    });
    expect(JSON.stringify(documents)).not.toContain('sealed');
    await spec.given([stored, attached, refreshed]).whenRedelivered([attached, stored]).thenUnchanged();
    await spec.given([stored, attached, erased]).thenDocuments({});
  });
});
