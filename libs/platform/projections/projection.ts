import type { RecordedEvent } from '@lore/platform/kernel';
import type { Doc, Filter } from '@lore/platform/documents/port';
import type { VectorIndexDefinition, VectorWrite } from '@lore/platform/vectors/port';

/**
 * What a projection sees while it handles a batch: reads see the batch's own earlier
 * writes, so a projection can fold several events of one aggregate in one batch.
 */
export interface ProjectionContext {
  get<T extends Doc>(collection: string, id: string): Promise<T | null>;
  upsert(collection: string, doc: Doc): void;
  delete(collection: string, id: string): void;
  deleteMany(collection: string, filter: Filter): void;
}

/**
 * A read model built from the event log (ARCHITECTURE §3.5): no effects besides its
 * documents, which are written atomically with its checkpoint; rebuildable from position
 * 0; read-your-writes waits for it. `name` is its checkpoint name: bump its version suffix
 * when its output changes, and it rebuilds.
 */
export interface Projection {
  readonly name: string;
  readonly streamPrefixes: readonly string[];
  /** Collections this projection owns; emptied on rebuild. */
  readonly collections: readonly string[];
  /**
   * Collections it writes to that a rebuild keeps: records of work still to do that a replay
   * could not write again (a deletion's purge, once the deleted stream is gone).
   */
  readonly keptOnRebuild?: readonly string[];
  handle(event: RecordedEvent, context: ProjectionContext): Promise<void>;
}

/**
 * Work with effects driven by the event log (integration-event publishing, erasure after a
 * deletion, pipelines): checkpointed after each batch, so it resumes after a crash and may
 * see an event again (at least once) — `react` must be idempotent. Read-your-writes never
 * waits for it; a write whose promise is the effect itself (a permanent deletion, answered
 * once erased) waits for that one reactor. Never rebuilt: re-running effects is no rebuild.
 */
export interface Reactor {
  readonly name: string;
  readonly streamPrefixes: readonly string[];
  /** A batch of events of its streams, in log order. */
  react(events: readonly RecordedEvent[]): Promise<void>;
  /**
   * Whether it acts on an event, when that is only some of its streams' events: a batch it acts
   * on none of is passed over without a commit (its checkpoint is written with the next batch it
   * acts on, or after PASS_OVER_CHECKPOINT_EVERY events passed over), so a feature nobody uses
   * costs no durable write per event; a restart reads at most that many events again.
   */
  readonly actsOn?: (event: RecordedEvent) => boolean;
  /**
   * Its effects are rows of the integration-event feed (the publishers). Where the process's
   * feed keeps checkpoints (standalone: `FeedCheckpoints`), this reactor's checkpoint is kept
   * there, written after the rows it covers, so the feed need not be durable on each commit of
   * its own: a crash that loses rows loses the checkpoint past them too, and the rows are
   * published again from the event log (durable on every append).
   */
  readonly checkpointInFeed?: true;
}

/**
 * Checkpoints kept beside the integration-event feed's rows, in the same log of commits: one
 * written after a batch's rows is never durable while they are not.
 */
export interface FeedCheckpoints {
  getCheckpoint(name: string): Promise<string | null>;
  saveCheckpoint(name: string, value: string): Promise<void>;
  deleteCheckpoint(name: string): Promise<void>;
}

/** What a vector projection sees while it handles a batch: its writes go out with the batch's checkpoint. */
export interface VectorProjectionContext {
  /** Creates the index before the batch's first write to it (idempotent). */
  ensureIndex(definition: VectorIndexDefinition): Promise<void>;
  write(write: VectorWrite): void;
}

/**
 * A read model in the vector store (points for dense, keyword and hybrid search): like a
 * `Projection`, its writes and its checkpoint go to its store together (atomically on SQLite,
 * idempotently in order on Qdrant), it is rebuildable from position 0, and read-your-writes
 * waits for it, so a search right after a write finds what was written.
 */
export interface VectorProjection {
  readonly name: string;
  readonly streamPrefixes: readonly string[];
  readonly target: 'vectors';
  handle(event: RecordedEvent, context: VectorProjectionContext): Promise<void>;
}

export type Processor = Projection | VectorProjection | Reactor;
/** What read-your-writes waits for. */
export type ReadModelProjection = Projection | VectorProjection;

export const isReactor = (processor: Processor): processor is Reactor => 'react' in processor;
export const isVectorProjection = (processor: Processor): processor is VectorProjection => 'target' in processor && processor.target === 'vectors';
