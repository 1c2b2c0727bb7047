import type { IntegrationEventEnvelope } from './integration-events';

/**
 * The integration events as one durable, ordered log that a reader resumes by position: the
 * HTTP event stream (`GET /api/v1/events`) and the webhook dispatcher read it. Distributed,
 * it is the JetStream stream `<PREFIX>_EVENTS` (position = stream sequence); standalone, a
 * SQLite table the in-process transport appends to (position = row id). Both are filled by
 * the same `publishIntegrationEvent`, so contexts never write to it directly.
 */
export type IntegrationEvent = IntegrationEventEnvelope & Readonly<Record<string, unknown>>;

export interface FeedEntry {
  /** Strictly increasing over the whole log, never reused: a client's resume point. */
  readonly position: number;
  /**
   * The event as stored, one line of JSON text (from a JetStream message, its bytes decoded,
   * never parsed). What the HTTP stream writes as it is, never re-serialised.
   */
  readonly stored: string;
  /** The event itself, parsed from `stored` on first access (the HTTP stream never asks). */
  readonly event: IntegrationEvent;
}

/**
 * A feed entry read from storage: the adapters select by subject or column, so only a reader
 * that needs the event's fields (the webhook dispatcher) pays for parsing it.
 */
export class StoredFeedEntry implements FeedEntry {
  private parsed: IntegrationEvent | undefined;

  constructor(
    readonly position: number,
    readonly stored: string,
  ) {}

  get event(): IntegrationEvent {
    return (this.parsed ??= JSON.parse(this.stored) as IntegrationEvent);
  }
}

/**
 * Entries in position order, read together: what storage handed over at once (a page of rows,
 * the messages of one socket read). One step of a reader's iteration covers them all, so a
 * catch-up of thousands of events costs a promise per page, not per event. Never empty.
 */
export type FeedPage = readonly FeedEntry[];

/** Which events a reader takes: one workspace, optionally narrowed to contexts and types (either matches). */
export interface FeedSelector {
  /** null: every workspace's (the webhook dispatcher; never a client's stream). */
  readonly workspaceId: string | null;
  /** `memory`, `connection`: every type of these contexts. */
  readonly contexts?: readonly string[];
  /** `<context>.<type>`, e.g. `memory.created`. */
  readonly types?: readonly string[];
}

export interface FollowOptions {
  /** Entries after this position (0: from the oldest kept). */
  readonly after: number;
  readonly selector: FeedSelector;
  /** Ends the iteration (the client went away, the process stops). */
  readonly signal: AbortSignal;
}

export interface FeedBounds {
  /** Oldest position still kept (older ones expired: `EVENTS_STREAM_MAX_AGE_HOURS`); `last + 1` when empty. */
  readonly first: number;
  readonly last: number;
}

export interface EventFeed {
  /**
   * Every selected entry after `after`, in position order, in pages: first what is stored, then
   * new ones as they arrive, until the signal aborts. Pull-based: nothing is read ahead of the
   * consumer beyond one batch, so a slow reader holds no growing buffer.
   */
  follow(options: FollowOptions): AsyncIterable<FeedPage>;
  bounds(): Promise<FeedBounds>;
  close(): Promise<void>;
}

/**
 * Whether an event of this type belongs to a selection's contexts and types (either matches).
 * The workspace is the adapter's to match without reading the event: by subject token or column.
 */
export function selectsType(selector: FeedSelector, type: string): boolean {
  if (selectsEveryType(selector)) return true;
  const contexts = selector.contexts ?? [];
  const types = selector.types ?? [];
  return types.includes(type) || contexts.includes(type.slice(0, type.indexOf('.')));
}

/** Whether a selection takes every type (it names no context and no type). */
export function selectsEveryType(selector: FeedSelector): boolean {
  return (selector.contexts?.length ?? 0) === 0 && (selector.types?.length ?? 0) === 0;
}
