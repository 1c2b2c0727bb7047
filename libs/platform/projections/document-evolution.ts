import type { RecordedEvent } from '@lore/platform/kernel';
import type { Doc } from '@lore/platform/documents/port';
import type { ProjectionContext } from './projection';

/** A read-model document evolved by the events of one stream: `revision` is the stream revision it reflects. */
export interface RevisionedDoc extends Doc {
  readonly revision: number;
}

/** A document as `evolve` gives it: its revision is stamped by `evolveDocument`. */
export type Unstamped<D extends RevisionedDoc> = { readonly [K in keyof D as K extends 'revision' ? never : K]: D[K] };

/** The next document from the current one (null: none); see `evolveDocument`. */
export type Evolve<D extends RevisionedDoc> = (current: D | null) => Unstamped<D> | D | null | Promise<Unstamped<D> | D | null>;

/**
 * Evolves one read-model document by one event of its stream, idempotently, so that a
 * projection is written as if each event came exactly once: events come at least once (a
 * batch replayed after a crash between its writes and its checkpoint), and a document that
 * already reflects the event (its `revision` is the event's or later) is left as it is, so a
 * redelivered creation never resets a document, nor a redelivered change counts twice.
 *
 * `evolve` gets the current document (null if none) and returns the next one, null to delete
 * it, or the current one itself to leave it unwritten. It runs only for an event the document
 * has yet to reflect, so the documents that go with this one (a deleted endpoint's delivery
 * log) are written from it too, through the same context.
 */
export async function evolveDocument<D extends RevisionedDoc>(
  context: ProjectionContext,
  recorded: RecordedEvent,
  collection: string,
  id: string,
  evolve: Evolve<D>,
): Promise<void> {
  const current = await context.get<D>(collection, id);
  if (current !== null && typeof current.revision === 'number' && current.revision >= recorded.revision) return;
  const evolved = evolve(current);
  // Most evolutions are synchronous: awaiting a plain value would still make a promise.
  const next = evolved instanceof Promise ? await evolved : evolved;
  if (next === current) return;
  if (next === null) {
    if (current !== null) context.delete(collection, id);
    return;
  }
  context.upsert(collection, { ...next, revision: recorded.revision });
}
