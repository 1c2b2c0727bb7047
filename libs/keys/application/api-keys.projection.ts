import { evolveDocument, type Projection } from '@lore/platform/projections';
import { API_KEY_STREAM_PREFIX, upcastApiKeyEvent } from '@lore/keys/domain';
import { API_KEYS, newApiKeyDoc, type ApiKeyDoc } from './api-keys.read-model';

export const apiKeysProjection: Projection = {
  name: 'keys.api-keys.v2',
  streamPrefixes: [API_KEY_STREAM_PREFIX],
  collections: [API_KEYS],
  async handle(recorded, context) {
    const event = upcastApiKeyEvent(recorded);
    await evolveDocument<ApiKeyDoc>(context, recorded, API_KEYS, event.data.keyId, async (current) => {
      switch (event.type) {
        case 'keys.ApiKeyCreated': {
          // Created by a key revoked in the meantime (a race with the cascade): shown as what it is.
          const parent = event.data.parentKeyId === null ? null : await context.get<ApiKeyDoc>(API_KEYS, event.data.parentKeyId);
          const doc = newApiKeyDoc(event.data);
          return parent?.status === 'revoked' ? { ...doc, status: 'revoked' } : doc;
        }
        case 'keys.ApiKeyRevoked':
          return current && { ...current, status: 'revoked', updated_at: event.data.revokedAt };
        case 'keys.ApiKeyRevocationCascaded':
          return current; // nothing a reader sees: the keys below it show their own revocations
      }
    });
  },
};
