import type { RecordedEvent } from '@lore/platform/kernel';

/** A stored event as an upcaster or projection receives it, for tests that need one without a store. */
export function recordedEvent(streamId: string, type: string, data: unknown, recordedAt = '2026-01-01T00:00:00.000Z'): RecordedEvent {
  return { id: 'e1', streamId, type, data, metadata: {}, revision: 0, position: { commit: 0n, prepare: 0n }, recordedAt };
}
