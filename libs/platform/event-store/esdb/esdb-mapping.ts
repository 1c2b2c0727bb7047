import {
  ANY,
  DeadlineExceededError,
  NO_STREAM,
  START as ESDB_START,
  StreamDeletedError as EsdbStreamDeletedError,
  UnavailableError,
  WrongExpectedVersionError,
  jsonEvent,
} from '@eventstore/db-client';
import type {
  AllStreamRecordedEvent,
  AppendExpectedRevision,
  EventData,
  JSONEventType,
  JSONType,
  RecordedEvent as EsdbRecordedEvent,
  ReadPosition,
} from '@eventstore/db-client';
import { AppError, START, comparePositions } from '@lore/platform/kernel';
import type { EventMetadata, Position, RecordedEvent } from '@lore/platform/kernel';
import { StreamDeletedError, WrongExpectedRevisionError } from '@lore/platform/event-store/port';
import type { EventToAppend, ExpectedRevision } from '@lore/platform/event-store/port';

type LoreJsonEvent = JSONEventType<string, JSONType, Record<string, unknown>>;

export function toEventData(event: EventToAppend): EventData<LoreJsonEvent> {
  return jsonEvent<LoreJsonEvent>({
    id: event.id,
    type: event.type,
    // The client JSON.stringifies data of any shape; its JSONType only narrows what it declares.
    data: (event.data ?? null) as JSONType,
    metadata: { ...event.metadata },
  });
}

export function toExpectedRevision(expected: ExpectedRevision): AppendExpectedRevision {
  if (expected === 'any') return ANY;
  if (expected === 'no_stream') return NO_STREAM;
  return BigInt(expected);
}

/** Where the client should start reading `$all` for an exclusive `after`; START means the beginning. */
export function toReadPosition(after: Position | undefined): ReadPosition {
  if (after === undefined || comparePositions(after, START) <= 0) return ESDB_START;
  return { commit: after.commit, prepare: after.prepare };
}

/** `$`-prefixed streams and event types belong to the server (stats, metadata, tombstones, links). */
export function isSystemEvent(event: { readonly streamId: string; readonly type: string }): boolean {
  return event.streamId.startsWith('$') || event.type.startsWith('$');
}

export function matchesPrefixes(streamId: string, prefixes: readonly string[]): boolean {
  return prefixes.length === 0 || prefixes.some((p) => streamId.startsWith(p));
}

export function toRecordedEvent(event: EsdbRecordedEvent | AllStreamRecordedEvent, commitPosition?: bigint): RecordedEvent {
  const position = event.position ?? (commitPosition === undefined ? undefined : { commit: commitPosition, prepare: commitPosition });
  // Servers before 22.6 do not return positions on stream reads; the port cannot do without them.
  if (position === undefined) throw new AppError('internal', `EventStoreDB returned event ${event.id} without a position`);
  return {
    id: event.id,
    streamId: event.streamId,
    type: event.type,
    data: event.data,
    metadata: toMetadata(event.metadata),
    revision: Number(event.revision),
    position: { commit: position.commit, prepare: position.prepare },
    recordedAt: event.created.toISOString(),
  };
}

function toMetadata(metadata: unknown): EventMetadata {
  // Events written by other tools may carry binary or non-object metadata: treat it as none.
  if (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata) || metadata instanceof Uint8Array) return {};
  return metadata as EventMetadata;
}

/** Translates the client's failures into the port's typed errors. */
export function mapError(error: unknown, streamId: string, expected: ExpectedRevision = 'any'): unknown {
  if (error instanceof WrongExpectedVersionError) {
    const actual = error.actualVersion === NO_STREAM ? 'no_stream' : Number(error.actualVersion);
    return new WrongExpectedRevisionError(streamId, expected, actual);
  }
  if (error instanceof EsdbStreamDeletedError) return new StreamDeletedError(streamId);
  if (error instanceof UnavailableError || error instanceof DeadlineExceededError) {
    return new AppError('unavailable', `EventStoreDB is unavailable: ${error.message}`);
  }
  return error;
}
