import type { RecordedEvent } from '@lore/platform/kernel';
import { MemoryEvent } from './memory.events';

/**
 * Turns a stored event into the current event shape. Version 1 is the only version so far,
 * so this validates; when a shape changes, the old shape's conversion goes here.
 */
export function upcastMemoryEvent(recorded: RecordedEvent): MemoryEvent {
  return MemoryEvent.parse({ type: recorded.type, data: recorded.data });
}
