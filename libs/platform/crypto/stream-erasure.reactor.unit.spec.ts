import type { RecordedEvent } from '@lore/platform/kernel';
import { streamErasureReactor, type StreamErasureDeps } from './stream-erasure.reactor';

function event(type: string): RecordedEvent {
  return { id: `${type}-id`, streamId: 'thing-1', type, data: {}, metadata: {}, revision: 0, position: { commit: 1n, prepare: 1n }, recordedAt: '2026-01-01T00:00:00.000Z' };
}

describe('stream erasure reactor', () => {
  // Never reached: the test asks only which events it acts on.
  const deps = {} as StreamErasureDeps;
  const reactor = streamErasureReactor(deps, {
    name: 'things.erasure.v1',
    streamPrefix: 'thing-',
    erasedStream: (e) => (e.type === 'ThingDeleted' ? e.streamId : null),
    erasedPart: (e) => (e.type === 'PartsDeleted' ? { streamId: e.streamId, erases: () => true } : null),
    keyIdsOf: () => [],
  });

  it('acts on the events that erase a stream or part of one, and passes over the rest (no commit per event)', () => {
    expect(reactor.actsOn?.(event('ThingDeleted'))).toBe(true);
    expect(reactor.actsOn?.(event('PartsDeleted'))).toBe(true);
    expect(reactor.actsOn?.(event('ThingCreated'))).toBe(false);
    expect(reactor.actsOn?.(event('ThingUpdated'))).toBe(false);
  });
});
