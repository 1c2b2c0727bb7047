import type { RecordedEvent } from '@lore/platform/kernel';
import { ApiKeyEvent } from './api-key.events';

/**
 * Stored shapes → current shape. Version 1 events predate key delegation limits: they have
 * no `parentKeyId` (created) or `cascadedFrom` (revoked), which mean "none". Events before
 * workspace roles have no `actsForOthers`: nobody recorded whether an administrator minted
 * them, so they act only for their creator (the README's migration note).
 */
export function upcastApiKeyEvent(recorded: RecordedEvent): ApiKeyEvent {
  const data = recorded.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    if (recorded.type === 'keys.ApiKeyCreated') return ApiKeyEvent.parse({ type: recorded.type, data: { parentKeyId: null, actsForOthers: false, ...data } });
    if (recorded.type === 'keys.ApiKeyRevoked') return ApiKeyEvent.parse({ type: recorded.type, data: { cascadedFrom: null, ...data } });
  }
  return ApiKeyEvent.parse({ type: recorded.type, data });
}
