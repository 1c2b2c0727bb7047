import { projectionSpec, recordedEvent } from '@lore/platform/testing';
import { apiKeysProjection } from './api-keys.projection';

/** The API keys read model (what authentication checks), built from key events; delivered at least once. */
const apiKeys = projectionSpec(apiKeysProjection);

const at = (minute: number): string => `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`;

const created = (keyId: string, status: 'active' | 'inactive' = 'active') =>
  recordedEvent(
    `apikey-${keyId}`,
    'keys.ApiKeyCreated',
    {
      keyId,
      workspaceId: 'ws_1',
      label: `label of ${keyId}`,
      status,
      expiresAt: '2027-01-01T00:00:00.000Z',
      permissions: ['memories:read'],
      ipWhitelist: ['10.0.0.0/8'],
      collections: ['c1'],
      createdBy: 'user:user_1',
      parentKeyId: null,
      secretVerifier: `verifier-of-${keyId}`,
      createdAt: at(0),
    },
    at(0),
  );
/** A key's second event (revision 1): nothing but a revocation follows a creation. */
const revoked = (keyId: string, minute = 5) => ({
  ...recordedEvent(`apikey-${keyId}`, 'keys.ApiKeyRevoked', { keyId, workspaceId: 'ws_1', revokedAt: at(minute), cascadedFrom: null }, at(minute)),
  revision: 1,
});

/** The document of a key as created; fields added to the read model later do not break this. */
const doc = (keyId: string, changes: { status?: string; updated_at?: string } = {}) =>
  expect.objectContaining({
    id: keyId,
    workspace_id: 'ws_1',
    label: `label of ${keyId}`,
    status: 'active',
    permissions: ['memories:read'],
    ip_whitelist: ['10.0.0.0/8'],
    collections: ['c1'],
    created_by: 'user:user_1',
    created_at: at(0),
    updated_at: at(0),
    expires_at: '2027-01-01T00:00:00.000Z',
    secret_verifier: `verifier-of-${keyId}`,
    ...changes,
  });

describe('api keys projection', () => {
  it('creates the document of a new key, active or inactive as created', async () => {
    await apiKeys.given([created('key_1'), created('key_2', 'inactive')]).thenDocuments({ api_keys: [doc('key_1'), doc('key_2', { status: 'inactive' })] });
  });

  it('marks a revoked key revoked, at the revocation time, and changes nothing else', async () => {
    const [before] = (await apiKeys.given([created('key_1')]).thenDocuments({ api_keys: [doc('key_1')] })).api_keys ?? [];
    const [after] = (await apiKeys.given([created('key_1'), revoked('key_1')]).thenDocuments({ api_keys: [doc('key_1', { status: 'revoked', updated_at: at(5) })] })).api_keys ?? [];
    expect(after).toEqual({ ...before, status: 'revoked', updated_at: at(5), revision: 1 });
  });

  it('revokes only the named key', async () => {
    await apiKeys
      .given([created('key_1'), created('key_2')])
      .when([revoked('key_2')])
      .thenDocuments({ api_keys: [doc('key_1'), doc('key_2', { status: 'revoked', updated_at: at(5) })] });
  });

  it('shows a key created by an already revoked key as revoked (a race with the cascade)', async () => {
    const child = recordedEvent('apikey-key_c', 'keys.ApiKeyCreated', { ...created('key_c').data as object, keyId: 'key_c', label: 'label of key_c', secretVerifier: 'verifier-of-key_c', parentKeyId: 'key_1' }, at(6));
    await apiKeys
      .given([created('key_1'), revoked('key_1')])
      .when([child])
      .thenDocuments({ api_keys: [doc('key_1', { status: 'revoked', updated_at: at(5) }), doc('key_c', { status: 'revoked' })] });
  });

  it('creates no document for the revocation of a key it never saw', async () => {
    await apiKeys.given([]).when([revoked('key_9')]).thenDocuments({ api_keys: [] });
  });

  it('builds the same documents when the events arrive in one batch', async () => {
    await apiKeys
      .given([created('key_1'), created('key_2'), revoked('key_1')], { oneBatch: true })
      .thenDocuments({ api_keys: [doc('key_1', { status: 'revoked', updated_at: at(5) }), doc('key_2')] });
  });

  describe('delivered at least once', () => {
    const history = [created('key_1'), revoked('key_1')];

    it('is unchanged by a revocation delivered again', async () => {
      await apiKeys.given(history).whenRedelivered([revoked('key_1')]).thenUnchanged();
    });

    it('keeps a revoked key revoked through a replay of everything, event by event or in one batch', async () => {
      await apiKeys.given(history).whenReplayed().thenUnchanged();
      await apiKeys.given(history).whenReplayed({ oneBatch: true }).thenUnchanged();
    });

    it('never brings a revoked key back when its creation is delivered again', async () => {
      await apiKeys.given(history).whenRedelivered([created('key_1')]).thenUnchanged();
      await apiKeys.given(history).whenRedelivered([created('key_1')]).thenDocuments({ api_keys: [doc('key_1', { status: 'revoked', updated_at: at(5) })] });
    });

    it('is unchanged by the creation of an active key delivered again', async () => {
      await apiKeys.given([created('key_1')]).whenRedelivered([created('key_1')]).thenUnchanged();
    });
  });
});
