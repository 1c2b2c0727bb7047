import { randomUUID } from 'node:crypto';
import { StreamDeletedError as EsdbStreamDeletedError, WrongExpectedVersionError } from '@eventstore/db-client';
import { START } from '@lore/platform/kernel';
import { StreamDeletedError, WrongExpectedRevisionError } from '@lore/platform/event-store/port';
import { isSystemEvent, mapError, matchesPrefixes, toEventData, toExpectedRevision, toReadPosition, toRecordedEvent } from './esdb-mapping';

/** The translation layer of the EventStoreDB adapter, checked without a server. */
describe('esdb mapping', () => {
  it('maps expected revisions to the client constants and bigints', () => {
    expect(toExpectedRevision('any')).toBe('any');
    expect(toExpectedRevision('no_stream')).toBe('no_stream');
    expect(toExpectedRevision(4)).toBe(4n);
  });

  it('builds JSON event data with id, type, data and metadata', () => {
    const id = randomUUID();
    const data = toEventData({ id, type: 'memory.MemoryAdded', data: { a: 1 }, metadata: { correlationId: 'c' } });
    expect(data).toMatchObject({ id, type: 'memory.MemoryAdded', contentType: 'application/json', data: { a: 1 }, metadata: { correlationId: 'c' } });
  });

  it('reads from the start for START or no checkpoint, else from the checkpoint', () => {
    expect(toReadPosition(undefined)).toBe('start');
    expect(toReadPosition(START)).toBe('start');
    expect(toReadPosition({ commit: 10n, prepare: 9n })).toEqual({ commit: 10n, prepare: 9n });
  });

  it('translates concurrency and deletion errors into the port errors', () => {
    const wrong = mapError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: 1n, current: 3n }), 's', 1);
    expect(wrong).toBeInstanceOf(WrongExpectedRevisionError);
    expect((wrong as WrongExpectedRevisionError).actual).toBe(3);
    const missing = mapError(new WrongExpectedVersionError(undefined, { streamName: 's', expected: 0n, current: 'no_stream' }), 's', 0);
    expect((missing as WrongExpectedRevisionError).actual).toBe('no_stream');
    expect(mapError(EsdbStreamDeletedError.fromStreamName('s'), 's')).toBeInstanceOf(StreamDeletedError);
    const other = new Error('boom');
    expect(mapError(other, 's')).toBe(other);
  });

  it('converts recorded events, with positions and ISO times', () => {
    const created = new Date('2025-01-02T03:04:05.678Z');
    const event = toRecordedEvent({
      streamId: 'memory-1',
      id: 'e1',
      isJson: true,
      revision: 2n,
      type: 'memory.MemoryAdded',
      created,
      data: { a: 1 },
      metadata: { actor: 'u' },
      position: { commit: 100n, prepare: 99n },
    });
    expect(event).toEqual({
      id: 'e1',
      streamId: 'memory-1',
      type: 'memory.MemoryAdded',
      data: { a: 1 },
      metadata: { actor: 'u' },
      revision: 2,
      position: { commit: 100n, prepare: 99n },
      recordedAt: '2025-01-02T03:04:05.678Z',
    });
  });

  it('recognises system events and prefixes', () => {
    expect(isSystemEvent({ streamId: '$stats-0', type: 'x' })).toBe(true);
    expect(isSystemEvent({ streamId: 'memory-1', type: '$streamDeleted' })).toBe(true);
    expect(isSystemEvent({ streamId: 'memory-1', type: 'memory.X' })).toBe(false);
    expect(matchesPrefixes('memory-1', [])).toBe(true);
    expect(matchesPrefixes('memory-1', ['keys-', 'memory-'])).toBe(true);
    expect(matchesPrefixes('memory-1', ['keys-'])).toBe(false);
  });
});
