import type { Position } from './position';

/** What a decider emits: a namespaced, past-tense type and its data. */
export interface DomainEvent<T extends string = string, D = unknown> {
  readonly type: T;
  readonly data: D;
}

/** Correlation and causation travel with every event for audit tooling. */
export interface EventMetadata {
  readonly correlationId?: string;
  readonly causationId?: string;
  readonly actor?: string;
  readonly workspaceId?: string;
  readonly [key: string]: unknown;
}

/** An event as it stands in the store. */
export interface RecordedEvent<D = unknown> {
  readonly id: string;
  readonly streamId: string;
  readonly type: string;
  readonly data: D;
  readonly metadata: EventMetadata;
  /** 0-based revision within the stream. */
  readonly revision: number;
  readonly position: Position;
  /** ISO 8601 time the store recorded the event. */
  readonly recordedAt: string;
}
