import type { EventStore } from '@lore/platform/event-store/port';
import type { DocumentWrite } from '@lore/platform/documents/port';
import type { EventApplier } from './event-applier';
import { deleteParked, upsertParked, type ParkedLedger } from './parked-ledger';
import { failedRecord, isTransientFailure, waitingBehind, type ParkedEvent } from './parked-event';

/** What an operator's retry of one stream's parked events did. */
export interface RetryOutcome {
  readonly applied: number;
  /** The record that failed again (attempts incremented), null when the stream is clear. */
  readonly failed: ParkedEvent | null;
}

/**
 * What is done to one processor's parked streams besides parking: an operator's retry and an
 * erasure. Its runner calls these in turn with its batches, so each sees the ledger as the
 * last change left it.
 */
export class ParkedStreams {
  constructor(
    private readonly processor: string,
    private readonly events: EventStore,
    private readonly applier: EventApplier,
    private readonly parked: ParkedLedger,
    private readonly onParked: (record: ParkedEvent) => void,
  ) {}

  /**
   * Applies the stream's parked events in log order, each removed from the ledger with its
   * effects; stops at the first that fails again (its attempts and error updated, the rest
   * waiting behind it). Events gone from the log (erased) are dropped.
   */
  async retry(streamId: string): Promise<RetryOutcome> {
    const byId = new Map((await this.events.readStream(streamId)).map((e) => [e.id, e]));
    let applied = 0;
    for (const record of [...this.parked.ofStream(streamId)]) {
      const event = byId.get(record.eventId);
      if (event === undefined) {
        await this.commit([deleteParked(record)]);
        this.parked.forget(record);
        continue;
      }
      try {
        await this.applier.apply([event], [deleteParked(record)]);
      } catch (error) {
        if (isTransientFailure(error)) throw error;
        const again = failedRecord(this.processor, event, error, record.attempts + 1, record.firstFailedAt, new Date().toISOString());
        const behind = this.parked.ofStream(streamId).filter((r) => r.id !== record.id).map((r) => waitingBehind(r, event.id));
        await this.commit([again, ...behind].map(upsertParked));
        for (const r of [again, ...behind]) this.parked.remember(r);
        this.onParked(again);
        return { applied, failed: again };
      }
      this.parked.forget(record);
      applied++;
    }
    return { applied, failed: null };
  }

  /**
   * Erasure of streams: their parked events are applied where they still apply (in order,
   * failures skipped: the stream is going, and a deletion event parked behind a poison one
   * must still drop what the processor holds of it), then their records are removed.
   */
  async forget(streamIds: readonly string[]): Promise<void> {
    for (const streamId of streamIds) {
      const records = [...this.parked.ofStream(streamId)];
      if (records.length === 0) continue;
      const byId = new Map((await this.events.readStream(streamId)).map((e) => [e.id, e]));
      for (const record of records) {
        const event = byId.get(record.eventId);
        try {
          await this.applier.apply(event === undefined ? [] : [event], [deleteParked(record)]);
        } catch {
          await this.commit([deleteParked(record)]);
        }
        this.parked.forget(record);
      }
    }
  }

  /** Parked-record changes alone (no events, no checkpoint). */
  private async commit(writes: readonly DocumentWrite[]): Promise<void> {
    await this.applier.apply([], writes);
  }
}
