import { positionToString, type Position, type RecordedEvent } from '@lore/platform/kernel';
import type { DocumentWrite } from '@lore/platform/documents/port';
import type { Checkpoint, EventApplier } from './event-applier';
import { upsertParked, type ParkedLedger } from './parked-ledger';
import { failedRecord, isTransientFailure, waitingRecord, type ParkedEvent } from './parked-event';

/** When a failing event is parked. */
export interface ParkingOptions {
  /**
   * Tries of one event that failed for a reason of its own, the first included (default 2:
   * one immediate retry). No delay between them: the runner is shared by every tenant, and an
   * event that failed twice in a row for a non-transient reason will fail a third time.
   */
  readonly attempts: number;
  /**
   * Restarts after transient failures without the checkpoint moving before the runner stops
   * taking "transient" at its word and tries the batch event by event (default 5: at most
   * about 3 s of jittered delays). See `FailingEvents.isolate`.
   */
  readonly isolateAfterRestarts: number;
}

export const DEFAULT_PARKING: ParkingOptions = { attempts: 2, isolateAfterRestarts: 5 };

/** The event an isolating pass suspects, with the records that park it and its stream's later events. */
interface Suspect {
  readonly error: unknown;
  readonly streamId: string;
  readonly eventId: string;
  readonly held: ParkedEvent[];
}

export const checkpointAt = (processor: string, event: RecordedEvent): Checkpoint => ({ name: processor, value: positionToString(event.position) });

/**
 * How a runner applies events once a batch failed: one by one, parking what fails for a
 * reason of its own, and (`isolate`) telling an event whose failure only looks transient
 * from an outage. Called by the runner in turn with its other work.
 */
export class FailingEvents {
  constructor(
    private readonly processor: string,
    private readonly applier: EventApplier,
    private readonly parked: ParkedLedger,
    private readonly parking: ParkingOptions,
    private readonly onError: (error: unknown) => void,
    private readonly onParked: (record: ParkedEvent) => void,
  ) {}

  /** The batch at once; events of parked streams are parked behind, in the same commit. */
  async applyAll(events: readonly RecordedEvent[], checkpoint: Checkpoint): Promise<void> {
    const now = new Date().toISOString();
    const behind: ParkedEvent[] = [];
    const runnable: RecordedEvent[] = [];
    for (const event of events) {
      const head = this.parked.head(event.streamId);
      if (head === undefined) runnable.push(event);
      else behind.push(waitingRecord(this.processor, event, head.eventId, now));
    }
    await this.applier.apply(runnable, behind.map(upsertParked), checkpoint);
    for (const record of behind) this.parked.remember(record);
  }

  /** One event of a batch that failed: retried at once, then parked; committed with its own checkpoint. */
  async applyAlone(event: RecordedEvent): Promise<void> {
    const checkpoint = checkpointAt(this.processor, event);
    if (this.parked.head(event.streamId) !== undefined) return this.applyAll([event], checkpoint);
    const failure = await this.tryAlone(event, [], checkpoint);
    if (failure !== null) await this.park([failure], checkpoint);
  }

  /**
   * Applies one event (with `writes`, and the checkpoint) up to `parking.attempts` times, at
   * once. Null when applied; the record to park when it failed for a reason of its own each
   * time. A transient failure is thrown.
   */
  private async tryAlone(event: RecordedEvent, writes: readonly DocumentWrite[], checkpoint: Checkpoint | undefined): Promise<ParkedEvent | null> {
    const firstFailedAt = new Date().toISOString();
    for (let attempt = 1; ; attempt++) {
      try {
        await this.applier.apply([event], writes, checkpoint);
        return null;
      } catch (error) {
        if (isTransientFailure(error)) throw error;
        if (attempt < this.parking.attempts) continue;
        this.onError(error);
        return failedRecord(this.processor, event, error, attempt, firstFailedAt, new Date().toISOString());
      }
    }
  }

  /** Commits parked records (with a checkpoint stepping past them, when given) and reports them. */
  private async park(records: readonly ParkedEvent[], checkpoint?: Checkpoint): Promise<void> {
    await this.applier.apply([], records.map(upsertParked), checkpoint);
    this.confirmParked(records);
  }

  private confirmParked(records: readonly ParkedEvent[]): void {
    for (const record of records) {
      this.parked.remember(record);
      if (record.reason === 'failed') this.onParked(record);
    }
  }

  /**
   * The runner kept restarting at one checkpoint on failures the errors call transient. Is it
   * an outage, or one event whose failure only looks transient? The batch is tried event by
   * event, and the answer is taken from the other events: the first event that fails
   * transiently becomes the suspect (it and the later events of its stream are held back);
   * it is parked (attempts: the restarts plus this try) as soon as any other event of the
   * pass applies, since the infrastructure answered. A second event failing transiently means
   * an outage: nothing of the suspect is recorded, and the runner restarts as before. So does
   * a suspect no other event vouches for (alone in the log, or only its own stream behind it):
   * it waits for the next event of another stream, and holds up nobody meanwhile.
   * Events failing for a reason of their own are parked as usual; while a suspect is pending
   * without moving the checkpoint (a redelivered event recorded as parked is skipped).
   */
  async isolate(fresh: readonly RecordedEvent[], last: RecordedEvent, stuck: { readonly restarts: number; readonly since: string }, applied: (position: Position) => void): Promise<void> {
    // Widened by hand: assigned in a catch inside the loop, which TypeScript's narrowing misses.
    let suspect = null as Suspect | null;
    let vouched = false;
    for (const event of fresh) {
      const now = new Date().toISOString();
      const checkpoint = suspect === null ? checkpointAt(this.processor, event) : undefined;
      if (suspect?.streamId === event.streamId) {
        suspect.held.push(waitingRecord(this.processor, event, suspect.eventId, now));
        continue;
      }
      const head = this.parked.head(event.streamId);
      if (head !== undefined) {
        await this.park([waitingRecord(this.processor, event, head.eventId, now)], checkpoint);
        continue;
      }
      let failure: ParkedEvent | null;
      try {
        failure = await this.tryAlone(event, suspect?.held.map(upsertParked) ?? [], checkpoint ?? checkpointAt(this.processor, event));
      } catch (error) {
        // tryAlone throws transient failures only; a second one in the pass is an outage.
        if (suspect !== null) throw error;
        const record = failedRecord(this.processor, event, error, stuck.restarts + 1, stuck.since, now);
        suspect = { error, streamId: event.streamId, eventId: event.id, held: [record] };
        continue;
      }
      if (failure !== null) {
        await this.park([failure], checkpoint);
        continue;
      }
      vouched = true;
      applied(event.position);
      if (suspect !== null) {
        this.onError(suspect.error);
        this.confirmParked(suspect.held);
        suspect = null;
      }
    }
    if (suspect === null) return;
    if (!vouched) throw suspect.error;
    this.onError(suspect.error);
    await this.park(suspect.held, checkpointAt(this.processor, last));
  }
}
