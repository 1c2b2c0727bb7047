import { comparePositions, positionFromString } from '@lore/platform/kernel';
import type { DocumentStore, DocumentWrite } from '@lore/platform/documents/port';
import { PARKED_COLLECTION, type ParkedEvent } from './parked-event';

/**
 * One processor's parked events, in memory by stream (loaded from the document store when its
 * runner starts), so that each delivered event is checked against them without a read. Only
 * its runner changes it, after the write that stored the change.
 */
export class ParkedLedger {
  private byStream = new Map<string, ParkedEvent[]>();
  private eventIds = new Set<string>();

  constructor(
    private readonly processor: string,
    private readonly documents: DocumentStore,
  ) {}

  async load(): Promise<void> {
    const { items } = await this.documents.collection<ParkedEvent>(PARKED_COLLECTION).find({ filter: { processor: this.processor } });
    this.byStream = new Map();
    this.eventIds = new Set();
    // Sorted once: each stream's list is then built in log order, without remember's re-sort.
    for (const record of items.sort(byPosition)) {
      const list = this.byStream.get(record.streamId);
      if (list === undefined) this.byStream.set(record.streamId, [record]);
      else list.push(record);
      this.eventIds.add(record.eventId);
    }
  }

  /** The stream's first parked event: what later events of the stream wait behind. */
  head(streamId: string): ParkedEvent | undefined {
    return this.byStream.get(streamId)?.[0];
  }

  holds(eventId: string): boolean {
    return this.eventIds.has(eventId);
  }

  /** The stream's parked events in log order. */
  ofStream(streamId: string): readonly ParkedEvent[] {
    return this.byStream.get(streamId) ?? [];
  }

  streams(): string[] {
    return [...this.byStream.keys()];
  }

  all(): ParkedEvent[] {
    return [...this.byStream.values()].flat();
  }

  get size(): number {
    return this.eventIds.size;
  }

  /** Records a stored (or re-stored) record. */
  remember(record: ParkedEvent): void {
    const list = (this.byStream.get(record.streamId) ?? []).filter((r) => r.id !== record.id);
    list.push(record);
    list.sort(byPosition);
    this.byStream.set(record.streamId, list);
    this.eventIds.add(record.eventId);
  }

  forget(record: ParkedEvent): void {
    const list = (this.byStream.get(record.streamId) ?? []).filter((r) => r.id !== record.id);
    if (list.length === 0) this.byStream.delete(record.streamId);
    else this.byStream.set(record.streamId, list);
    this.eventIds.delete(record.eventId);
  }

  clear(): void {
    this.byStream.clear();
    this.eventIds.clear();
  }
}

export const upsertParked = (record: ParkedEvent): DocumentWrite => ({ collection: PARKED_COLLECTION, op: 'upsert', doc: record });
export const deleteParked = (record: ParkedEvent): DocumentWrite => ({ collection: PARKED_COLLECTION, op: 'delete', id: record.id });

/** Log order of parked records. */
export function byPosition(a: Pick<ParkedEvent, 'position'>, b: Pick<ParkedEvent, 'position'>): number {
  return comparePositions(positionFromString(a.position), positionFromString(b.position));
}
