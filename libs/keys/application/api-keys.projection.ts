import type { Projection } from '@lore/platform/projections';
import { API_KEY_STREAM_PREFIX, upcastApiKeyEvent } from '@lore/keys/domain';
import { API_KEYS, type ApiKeyDoc } from './api-keys.read-model';

export const apiKeysProjection: Projection = {
  name: 'keys.api-keys.v1',
  streamPrefixes: [API_KEY_STREAM_PREFIX],
  collections: [API_KEYS],
  async handle(recorded, context) {
    const event = upcastApiKeyEvent(recorded);
    switch (event.type) {
      case 'keys.ApiKeyCreated': {
        const d = event.data;
        const doc: ApiKeyDoc = {
          id: d.keyId,
          workspace_id: d.workspaceId,
          label: d.label,
          status: d.status,
          permissions: d.permissions,
          ip_whitelist: d.ipWhitelist,
          collections: d.collections,
          created_by: d.createdBy,
          created_at: d.createdAt,
          updated_at: d.createdAt,
          expires_at: d.expiresAt,
          secret_verifier: d.secretVerifier,
        };
        context.upsert(API_KEYS, doc);
        return;
      }
      case 'keys.ApiKeyRevoked': {
        const current = await context.get<ApiKeyDoc>(API_KEYS, event.data.keyId);
        if (current !== null) context.upsert(API_KEYS, { ...current, status: 'revoked', updated_at: event.data.revokedAt });
        return;
      }
    }
  },
};
