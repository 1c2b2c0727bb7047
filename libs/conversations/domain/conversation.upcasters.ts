import type { RecordedEvent } from '@lore/platform/kernel';
import { ConversationEvent } from './conversation.events';

/**
 * Turns a stored event into the current event shape. Version 1 is the only version so far,
 * so this validates; when a shape changes, the old shape's conversion goes here.
 */
export function upcastConversationEvent(recorded: RecordedEvent): ConversationEvent {
  return ConversationEvent.parse({ type: recorded.type, data: recorded.data });
}
