import type { Projection } from '@lore/platform/projections';
import { API_KEY_STREAM_PREFIX, upcastApiKeyEvent } from '@lore/keys/domain';
import { API_KEYS, newApiKeyDoc, type ApiKeyDoc } from './api-keys.read-model';

export const apiKeysProjection: Projection = {
  name: 'keys.api-keys.v2',
  streamPrefixes: [API_KEY_STREAM_PREFIX],
  collections: [API_KEYS],
  async handle(recorded, context) {
    const event = upcastApiKeyEvent(recorded);
    switch (event.type) {
      case 'keys.ApiKeyCreated': {
        // A key's first event: a redelivery must not bring back a key revoked since.
        if ((await context.get<ApiKeyDoc>(API_KEYS, event.data.keyId)) !== null) return;
        // Created by a key revoked in the meantime (a race with the cascade): shown as what it is.
        const parent = event.data.parentKeyId === null ? null : await context.get<ApiKeyDoc>(API_KEYS, event.data.parentKeyId);
        const doc = newApiKeyDoc(event.data);
        context.upsert(API_KEYS, parent?.status === 'revoked' ? { ...doc, status: 'revoked' } : doc);
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
