import type { EventMetadata, Position, RecordedEvent } from '@lore/platform/kernel';

/** `any`: no check; `no_stream`: the stream must not exist; a number: the stream's current revision. */
export type ExpectedRevision = 'any' | 'no_stream' | number;

export interface EventToAppend {
  /** Unique event id (uuid); a retried append with the same ids is not stored twice where the engine supports it. */
  readonly id: string;
  readonly type: string;
  readonly data: unknown;
  readonly metadata?: EventMetadata;
}

export interface AppendResult {
  /** Revision of the last event appended. */
  readonly revision: number;
  /** Global position of the last event appended; read-your-writes waits for projections to pass it. */
  readonly position: Position;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omitted: from the beginning. */
  readonly after?: Position;
  readonly maxCount?: number;
  /** Only streams whose id starts with one of these prefixes (e.g. `memory-`). */
  readonly streamPrefixes?: readonly string[];
}

export interface CountAfterOptions {
  /** Exclusive, as in `readAll`. Omitted: from the beginning. */
  readonly after?: Position;
  readonly streamPrefixes?: readonly string[];
  /** Counting stops here: the answer is at most `cap` (a far-behind reader costs no more than this). */
  readonly cap: number;
}

export interface SubscribeOptions {
  /** Exclusive checkpoint: catch up from just after it, then go live. Omitted: from the start. */
  readonly after?: Position;
  readonly streamPrefixes?: readonly string[];
}

export interface EventSubscription {
  close(): Promise<void>;
}

/**
 * Handler for a subscription. It receives events in global order, a batch at a time; the
 * next batch is not delivered before the returned promise settles. A rejection stops the
 * subscription and is reported through `onError`.
 */
export type EventBatchHandler = (events: readonly RecordedEvent[]) => Promise<void>;

export interface EventStore {
  append(streamId: string, events: readonly EventToAppend[], expected: ExpectedRevision): Promise<AppendResult>;
  /** All events of a stream in revision order; an empty array when the stream does not exist or was deleted. */
  readStream(streamId: string, options?: { fromRevision?: number; maxCount?: number }): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /**
   * How many events `readAll` would return with these options, up to `cap`, without reading
   * or decoding their data where the engine can count (processor lag for metrics).
   */
  countAfter(options: CountAfterOptions): Promise<number>;
  /** Catch-up then live subscription to the global log. */
  subscribeToAll(options: SubscribeOptions, handler: EventBatchHandler, onError?: (error: unknown) => void): EventSubscription;
  /** Permanent deletion: the events are gone from the stream and from `$all`; later appends to the stream fail. */
  deleteStream(streamId: string): Promise<void>;
  /** Position of the last event in the log, or START when empty. */
  headPosition(): Promise<Position>;
  close(): Promise<void>;
}
