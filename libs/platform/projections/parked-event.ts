import { createHash } from 'node:crypto';
import { AppError, positionToString, type RecordedEvent } from '@lore/platform/kernel';
import type { Doc } from '@lore/platform/documents/port';

/**
 * Where parked events are kept: a collection of the context's document store, beside the
 * checkpoints (for document projections and reactors written in the same transaction as the
 * checkpoint that steps past them). The leading letters keep it clear of projection names.
 */
export const PARKED_COLLECTION = 'parked_events';

/** `failed`: the handler failed on it every time; `waiting-behind`: an earlier event of its stream is parked. */
export type ParkedReason = 'failed' | 'waiting-behind';

/**
 * One event a processor stepped past without applying it. Only ids, names, times and the
 * error's own name and message (truncated): never the event's data, so erasure has nothing
 * of the user's to find here beyond the stream id, and removes the record with the stream.
 */
export interface ParkedEvent extends Doc {
  readonly id: string;
  readonly processor: string;
  readonly streamId: string;
  readonly eventId: string;
  /** Global log position (`commit:prepare`); orders a stream's parked events. */
  readonly position: string;
  readonly eventType: string;
  /** From the event's metadata; null when it names none (system events). */
  readonly workspaceId: string | null;
  readonly reason: ParkedReason;
  /** For `waiting-behind`: the event id it waits behind. */
  readonly blockedBy: string | null;
  readonly error: string | null;
  readonly attempts: number;
  readonly firstFailedAt: string;
  readonly lastFailedAt: string;
}

/** What an error may say in a parked record: its name and message, cut to this length. */
export const MAX_PARKED_ERROR_CHARS = 500;

/** A record's id: short, URL-safe, the same whenever the same processor parks the same event. */
export function parkedEventId(processor: string, eventId: string): string {
  return createHash('sha256').update(`${processor}\u0000${eventId}`).digest('base64url').slice(0, 22);
}

export function describeError(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : typeof error === 'string' ? error : 'non-error value thrown';
  return text.length > MAX_PARKED_ERROR_CHARS ? `${text.slice(0, MAX_PARKED_ERROR_CHARS - 1)}…` : text;
}

function workspaceOf(event: RecordedEvent): string | null {
  const workspace = event.metadata.workspaceId;
  return typeof workspace === 'string' && workspace !== '' ? workspace : null;
}

/** What every record of `event` says about it, whatever the reason it is parked. */
function recordOf(processor: string, event: RecordedEvent): Pick<ParkedEvent, 'id' | 'processor' | 'streamId' | 'eventId' | 'position' | 'eventType' | 'workspaceId'> {
  return {
    id: parkedEventId(processor, event.id),
    processor,
    streamId: event.streamId,
    eventId: event.id,
    position: positionToString(event.position),
    eventType: event.type,
    workspaceId: workspaceOf(event),
  };
}

export function failedRecord(processor: string, event: RecordedEvent, error: unknown, attempts: number, firstFailedAt: string, now: string): ParkedEvent {
  return { ...recordOf(processor, event), reason: 'failed', blockedBy: null, error: describeError(error), attempts, firstFailedAt, lastFailedAt: now };
}

const waitingMessage = (blockedBy: string): string => `waiting behind parked event ${blockedBy} of the same stream, to keep the stream's order`;

/** A record now waiting behind another event of its stream (an operator's retry applied the one before). */
export function waitingBehind(record: ParkedEvent, blockedBy: string): ParkedEvent {
  return { ...record, reason: 'waiting-behind', blockedBy, error: waitingMessage(blockedBy) };
}

export function waitingRecord(processor: string, event: RecordedEvent, blockedBy: string, now: string): ParkedEvent {
  return { ...recordOf(processor, event), reason: 'waiting-behind', blockedBy, error: waitingMessage(blockedBy), attempts: 0, firstFailedAt: now, lastFailedAt: now };
}

/** The 503 a read-your-writes wait answers at once when the write's stream is parked in a processor it waits for. */
export function parkedStreamError(processor: string, record: ParkedEvent): AppError {
  return new AppError(
    'unavailable',
    `writes so far are stored, but ${processor} has parked event ${record.eventId} of this resource's stream after it failed ${record.attempts} time(s); the resource's read model stays behind until an operator retries the parked events`,
  );
}

const TRANSIENT_CODES = new Set([
  'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNABORTED',
  'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_CLOSED',
  'TIMEOUT', 'CONNECTION_CLOSED', 'CONNECTION_REFUSED', 'DISCONNECT', '503',
]);
const TRANSIENT_NAMES = new Set([
  'MongoNetworkError', 'MongoNetworkTimeoutError', 'MongoServerSelectionError', 'MongoNotConnectedError', 'MongoTopologyClosedError', 'PoolClosedError',
  'UnavailableError', 'DeadlineExceededError', 'NotLeaderError', 'CancelledError',
]);

/**
 * Whether a failure says "the infrastructure is briefly away" (a store, broker or index
 * unreachable, busy or timing out) rather than "this event cannot be handled". Those restart
 * the whole runner from its checkpoint and never park an event: parking would move every
 * stream's events aside during an outage. Recognised by error code and class name, along the
 * `cause` chain (fetch wraps the socket error); an error with a boolean `retryable` says so
 * itself. Anything else is the event's own failure.
 */
export function isTransientFailure(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    // An error that says itself whether trying again can help (an embedding model's) is taken at its word.
    if ('retryable' in current && typeof current.retryable === 'boolean') return current.retryable;
    if (current instanceof AppError) return current.code === 'unavailable';
    const code = 'code' in current ? current.code : undefined;
    if ((typeof code === 'string' || typeof code === 'number') && (TRANSIENT_CODES.has(String(code)) || /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN)/.test(String(code)))) return true;
    if (TRANSIENT_NAMES.has(current.name)) return true;
    current = current.cause;
  }
  return false;
}
