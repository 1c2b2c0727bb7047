import type { RecordedEvent } from '@lore/platform/kernel';
import type { Doc, Filter } from '@lore/platform/documents/port';

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
 * A read model (or an outbound feed) built from the event log. `name` is its checkpoint
 * name: bump its version suffix when the projection's output changes, and it rebuilds.
 */
export interface Projection {
  readonly name: string;
  readonly streamPrefixes: readonly string[];
  /** Collections this projection owns; emptied on rebuild. */
  readonly collections: readonly string[];
  handle(event: RecordedEvent, context: ProjectionContext): Promise<void>;
}
