import type { RecordedEvent } from '@lore/platform/kernel';
import { CollectionEvent } from './collection.events';
import { ContentEvent } from './content.events';

/**
 * Stored events in their current shape. Version 1 is the only version so far, so these
 * validate; when a shape changes, the old shape's conversion goes here.
 */
export function upcastCollectionEvent(recorded: RecordedEvent): CollectionEvent {
  return CollectionEvent.parse({ type: recorded.type, data: recorded.data });
}

export function upcastContentEvent(recorded: RecordedEvent): ContentEvent {
  return ContentEvent.parse({ type: recorded.type, data: recorded.data });
}
