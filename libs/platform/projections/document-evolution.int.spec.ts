import { positionToString, type RecordedEvent } from '@lore/platform/kernel';
import { openSqliteDocumentStore } from '@lore/platform/documents/sqlite';
import type { DocumentStore } from '@lore/platform/documents/port';
import { BatchContext } from './batch-context';
import { evolveDocument, type RevisionedDoc } from './document-evolution';

/** A counter per stream: `added` adds one (not idempotent by itself), `reset` deletes it, `noted` changes nothing. */
interface CounterDoc extends RevisionedDoc {
  readonly count: number;
}

const event = (revision: number, type: 'added' | 'reset' | 'noted'): RecordedEvent => ({
  id: `e${revision}`,
  streamId: 'counter-c1',
  type,
  data: {},
  metadata: {},
  revision,
  position: { commit: BigInt(revision), prepare: BigInt(revision) },
  recordedAt: '2026-01-01T00:00:00.000Z',
});

describe('evolveDocument', () => {
  let store: DocumentStore;
  beforeEach(() => {
    store = openSqliteDocumentStore({ path: ':memory:' });
  });
  afterEach(async () => {
    await store.close();
  });

  /** Delivers a batch as the runner does: writes applied together with the checkpoint. */
  const deliver = async (...events: RecordedEvent[]): Promise<void> => {
    const context = new BatchContext(store);
    for (const recorded of events) {
      await evolveDocument<CounterDoc>(context, recorded, 'counters', 'c1', (current) => {
        if (recorded.type === 'reset') return null;
        if (recorded.type === 'noted') return current;
        return { id: 'c1', count: (current?.count ?? 0) + 1 };
      });
    }
    const last = events.at(-1);
    await store.write(context.writes, last === undefined ? undefined : { name: 'counters', value: positionToString(last.position) });
  };
  const counter = () => store.collection<CounterDoc>('counters').get('c1');

  it('evolves the document by each event, stamping the revision it reflects', async () => {
    await deliver(event(0, 'added'));
    await deliver(event(1, 'added'), event(2, 'added'));
    expect(await counter()).toEqual({ id: 'c1', count: 3, revision: 2 });
  });

  it('skips an event the document already reflects: a redelivered batch counts once', async () => {
    await deliver(event(0, 'added'), event(1, 'added'));
    await deliver(event(0, 'added'), event(1, 'added'));
    await deliver(event(1, 'added'));
    expect(await counter()).toEqual({ id: 'c1', count: 2, revision: 1 });
  });

  it('waits for an evolve that answers later (one that opens sealed fields), and writes what it resolves to', async () => {
    const context = new BatchContext(store);
    await evolveDocument<CounterDoc>(context, event(0, 'added'), 'counters', 'c1', async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { id: 'c1', count: 41 };
    });
    await store.write(context.writes);
    expect(await counter()).toEqual({ id: 'c1', count: 41, revision: 0 });
  });

  it('deletes on null, and leaves the document unwritten when evolve returns it as it is', async () => {
    await deliver(event(0, 'added'), event(1, 'noted'));
    expect(await counter()).toEqual({ id: 'c1', count: 1, revision: 0 });
    await deliver(event(2, 'reset'));
    expect(await counter()).toBeNull();
  });

  it('evolves a document written before revisions were recorded (no revision: it reflects nothing known)', async () => {
    await store.collection('counters').upsert({ id: 'c1', count: 5 });
    await deliver(event(7, 'added'));
    expect(await counter()).toEqual({ id: 'c1', count: 6, revision: 7 });
  });
});
