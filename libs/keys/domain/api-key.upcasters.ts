import type { RecordedEvent } from '@lore/platform/kernel';
import { ApiKeyEvent } from './api-key.events';

/**
 * Stored shapes → current shape. Version 1 events predate key delegation limits: they have
 * no `parentKeyId` (created) or `cascadedFrom` (revoked), which mean "none".
 */
export function upcastApiKeyEvent(recorded: RecordedEvent): ApiKeyEvent {
  const data = recorded.data;
  if (typeof data === 'object' && data !== null && !Array.isArray(data)) {
    if (recorded.type === 'keys.ApiKeyCreated' && !('parentKeyId' in data)) return ApiKeyEvent.parse({ type: recorded.type, data: { ...data, parentKeyId: null } });
    if (recorded.type === 'keys.ApiKeyRevoked' && !('cascadedFrom' in data)) return ApiKeyEvent.parse({ type: recorded.type, data: { ...data, cascadedFrom: null } });
  }
  return ApiKeyEvent.parse({ type: recorded.type, data });
}
