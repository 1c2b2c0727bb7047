import { positionToString, type RecordedEvent } from '@lore/platform/kernel';
import type { Doc, DocumentStore } from '@lore/platform/documents/port';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import { BatchContext, type Projection } from '@lore/platform/projections';

/**
 * Given/when/then for projections (ARCHITECTURE §3.5, §3.8), on an embedded SQLite document
 * store: `given` events are delivered to the projection as the runner delivers them (each
 * batch's writes applied together with the checkpoint), `thenDocuments` compares the documents of
 * every collection the projection owns or wrote to. Delivery is at least once, so a
 * projection must be idempotent: `whenRedelivered` / `whenReplayed` deliver events that
 * were already applied, and `thenUnchanged` asserts they changed nothing.
 *
 *   await projectionSpec(memoriesProjection).given([created, replaced]).thenDocuments({ memories: [doc] });
 *   await projectionSpec(memoriesProjection).given([created, v2, v3]).whenRedelivered([v2]).thenUnchanged();
 *
 * Expected documents are listed in id order (the store's order) and compared with `toEqual`,
 * so asymmetric matchers (`expect.objectContaining`) may stand in for whole documents. A
 * collection left out of `expected` must be empty. (Not named `then`: an object with a
 * `then` method is a thenable, and awaiting a scenario would silently misuse it.)
 */
export interface ProjectionSpec {
  given(events: readonly RecordedEvent[], delivery?: Delivery): ProjectionGiven;
}

export interface Delivery {
  /**
   * Deliver the events in one batch (reads within it see its earlier writes, as when the
   * runner catches up) instead of one batch per event (as when it is live). Default false.
   */
  readonly oneBatch?: boolean;
}

/** The projection's documents by collection name. */
export type Documents = Readonly<Record<string, readonly Doc[]>>;
/** Expected documents by collection name; entries may be asymmetric matchers. */
export type ExpectedDocuments = Readonly<Record<string, readonly unknown[]>>;

export interface ProjectionGiven extends ProjectionThen {
  /** Delivers further events after the given ones. */
  when(events: readonly RecordedEvent[], delivery?: Delivery): ProjectionWhen;
  /** At-least-once delivery: delivers again events that are among the given ones (in the order listed here). */
  whenRedelivered(events: readonly RecordedEvent[], delivery?: Delivery): ProjectionWhen;
  /** At-least-once delivery: delivers every given event again, in order (a replay from an older checkpoint). */
  whenReplayed(delivery?: Delivery): ProjectionWhen;
}

export interface ProjectionWhen extends ProjectionThen {
  /** Asserts the documents are exactly those after `given`: the delivery changed nothing. Returns them. */
  thenUnchanged(): Promise<Documents>;
}

export interface ProjectionThen {
  /** Asserts the documents (every collection the projection owns or wrote to) and returns them. */
  thenDocuments(expected: ExpectedDocuments): Promise<Documents>;
}

interface Step {
  readonly events: readonly RecordedEvent[];
  readonly delivery: Delivery;
}

export function projectionSpec(projection: Projection): ProjectionSpec {
  return {
    given(givenEvents, givenDelivery = {}) {
      const given: Step = { events: givenEvents, delivery: givenDelivery };
      const when = (step: Step): ProjectionWhen => ({
        thenDocuments: (expected) => run(projection, given, step, (after) => assertDocuments(after, expected)),
        thenUnchanged: () => run(projection, given, step, (after, before) => expect(after).toEqual(before)),
      });
      return {
        thenDocuments: (expected) => run(projection, given, null, (after) => assertDocuments(after, expected)),
        when: (events, delivery = {}) => when({ events, delivery }),
        whenRedelivered(events, delivery = {}) {
          for (const event of events) expect(givenEvents).toContainEqual(event);
          return when({ events, delivery });
        },
        whenReplayed: (delivery = {}) => when({ events: givenEvents, delivery }),
      };
    },
  };
}

async function run(
  projection: Projection,
  given: Step,
  when: Step | null,
  check: (after: Documents, before: Documents) => void,
): Promise<Documents> {
  const documents = openSqliteDocumentStore({ path: ':memory:' });
  try {
    const touched = new Set([...projection.collections, ...(projection.keptOnRebuild ?? [])]);
    await deliver(projection, documents, given, touched);
    const before = await snapshot(documents, touched);
    if (when !== null) await deliver(projection, documents, when, touched);
    const after = await snapshot(documents, touched);
    check(after, before);
    return after;
  } finally {
    await documents.close();
  }
}

async function deliver(projection: Projection, documents: DocumentStore, step: Step, touched: Set<string>): Promise<void> {
  const batches = step.delivery.oneBatch ? [step.events] : step.events.map((event) => [event]);
  for (const batch of batches) {
    const last = batch[batch.length - 1];
    if (last === undefined) continue;
    const context = new BatchContext(documents);
    for (const event of batch) await projection.handle(event, context);
    for (const write of context.writes) touched.add(write.collection);
    await documents.write(context.writes, { name: projection.name, value: positionToString(last.position) });
  }
}

async function snapshot(documents: DocumentStore, collections: ReadonlySet<string>): Promise<Documents> {
  const result: Record<string, Doc[]> = {};
  for (const name of [...collections].sort()) result[name] = (await documents.collection(name).find()).items;
  return result;
}

function assertDocuments(actual: Documents, expected: ExpectedDocuments): void {
  const names = new Set([...Object.keys(actual), ...Object.keys(expected)]);
  const full: Record<string, readonly unknown[]> = {};
  for (const name of [...names].sort()) full[name] = expected[name] ?? [];
  const unexpected = Object.keys(expected).filter((name) => !(name in actual));
  if (unexpected.length > 0) throw new Error(`expected documents in ${unexpected.join(', ')}, which the projection neither owns nor wrote to`);
  expect(actual).toEqual(full);
}
