import type { RecordedEvent } from '@lore/platform/kernel';
import { ApiKeyEvent } from './api-key.events';

/** Version 1 is the only stored shape so far; conversions of older shapes go here. */
export function upcastApiKeyEvent(recorded: RecordedEvent): ApiKeyEvent {
  return ApiKeyEvent.parse({ type: recorded.type, data: recorded.data });
}
